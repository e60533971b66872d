/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DAMON: data access monitoring, and DAMOS: memory operations driven by the
 * access patterns DAMON finds.
 *
 * A monitoring context (struct damon_ctx) watches one or more targets (struct
 * damon_target), each a set of address ranges cut into regions (struct
 * damon_region).  A kernel thread, kdamond, samples one address per region
 * every sampling interval through an operations backend (struct
 * damon_operations), counts the regions found accessed, and every aggregation
 * interval adapts the regions (merging alike neighbours, splitting the rest)
 * and hands them to the schemes (struct damos) that act on the ones matching
 * their access pattern, within quotas and while their watermarks allow.
 */
#ifndef _LINUX_DAMON_H
#define _LINUX_DAMON_H

#include <linux/completion.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock_types.h>
#include <linux/types.h>

struct damon_ctx;
struct damos;
struct folio;
struct task_struct;

/* === Regions and targets === */

/**
 * struct damon_addr_range - A half-open address range, [@start, @end).
 * @start:	First address of the range.
 * @end:	First address past the range.
 */
struct damon_addr_range {
	unsigned long start;
	unsigned long end;
};

/**
 * struct damon_region - A range of a target whose pages are assumed to be
 * accessed alike, so that sampling one address tells about all of them.
 * @ar:			The address range of the region.
 * @list:		Entry in the region list of the target.
 * @age:		Time, in aggregation intervals, for which the access
 *			frequency of the region stayed alike, or since a DAMOS
 *			action other than %DAMOS_STAT was last applied to it.
 * @nr_accesses:	Sampling intervals of the current aggregation window
 *			in which the region was found accessed.
 * @last_nr_accesses:	@nr_accesses of the previous aggregation window.
 * @sampling_addr:	Address sampled in the current sampling interval.
 * @sampling_state:	What the operations backend keeps about the page at
 *			@sampling_addr, in flags of its own.  It goes with
 *			the page: a split gives both to the part that holds
 *			the page, and the core clears it whenever it picks a
 *			new @sampling_addr (a new region, the part without
 *			the page, a region trimmed past it).
 *
 * Regions of a target are kept sorted by address and never overlap.
 */
struct damon_region {
	struct damon_addr_range ar;
	struct list_head list;
	unsigned int age;
	unsigned int nr_accesses;
	unsigned int last_nr_accesses;
	unsigned long sampling_addr;
	unsigned int sampling_state;
};

/**
 * struct damon_target - One monitored address space (or part of it).
 * @nr_regions:		Number of regions in @regions.
 * @regions:		The regions, sorted by address.
 * @list:		Entry in the target list of the context.
 */
struct damon_target {
	unsigned int nr_regions;
	struct list_head regions;
	struct list_head list;
};

/* === DAMOS: access-pattern-driven operations === */

/**
 * enum damos_action - What a scheme does to the regions it matches.
 * @DAMOS_PAGEOUT:	Reclaim the pages of the region (page them out).
 * @DAMOS_STAT:		Do nothing but count the region in the statistics.
 * @NR_DAMOS_ACTIONS:	Number of actions.
 */
enum damos_action {
	DAMOS_PAGEOUT,
	DAMOS_STAT,
	NR_DAMOS_ACTIONS,
};

/**
 * struct damos_access_pattern - Which regions a scheme applies to.
 * @min_sz_region:	Smallest region size, in bytes.
 * @min_nr_accesses:	Fewest accesses per aggregation window.
 * @min_age_region:	Youngest age, in aggregation intervals; %UINT_MAX
 *			(where longer times saturate) matches no region.
 * @max_sz_region:	Largest region size, in bytes.
 * @max_nr_accesses:	Most accesses per aggregation window.
 * @max_age_region:	Oldest age, in aggregation intervals.
 *
 * Each range is inclusive at both ends.  A region matches when its size,
 * access count and age all fall inside their ranges.
 */
struct damos_access_pattern {
	/* Lower bounds ... */
	unsigned long min_sz_region;
	unsigned int min_nr_accesses;
	unsigned int min_age_region;
	/* ... and upper bounds, all inclusive. */
	unsigned long max_sz_region;
	unsigned int max_nr_accesses;
	unsigned int max_age_region;
};

/**
 * enum damos_quota_goal_metric - What a quota auto-tuning goal measures.
 * @DAMOS_QUOTA_USER_INPUT:	A value the user supplies and keeps fresh in
 *				&damos_quota_goal.current_value.
 * @DAMOS_QUOTA_SOME_MEM_PSI_US: Microseconds of "some" memory pressure
 *				stall of the system in the last reset interval.
 * @NR_DAMOS_QUOTA_GOAL_METRICS: Number of metrics.
 */
enum damos_quota_goal_metric {
	DAMOS_QUOTA_USER_INPUT,		/* fed by the user */
	DAMOS_QUOTA_SOME_MEM_PSI_US,	/* measured by the engine */
	NR_DAMOS_QUOTA_GOAL_METRICS,
};

/**
 * struct damos_quota_goal - A target value that auto-tunes a quota.
 * @metric:		What is measured.
 * @current_value:	The last measured (or user-supplied) value.
 * @target_value:	The value the tuning aims at.
 * @last_psi_total:	PSI total at the previous measurement, in
 *			microseconds; private to the DAMOS engine.
 * @list:		Entry in &damos_quota.goals.
 *
 * While the current value is below the target, the effective quota grows;
 * above it, the quota shrinks.
 */
struct damos_quota_goal {
	enum damos_quota_goal_metric metric;
	unsigned long current_value;
	unsigned long target_value;
	u64 last_psi_total;
	struct list_head list;
};

/**
 * struct damos_quota - How much a scheme may do per charge window.
 * @ms:			Time quota: milliseconds of CPU time acting per
 *			window, choosing and preparing the regions
 *			included; what a window spends beyond it is taken
 *			from the next ones.  0 means unlimited.
 * @sz:			Size quota: bytes acted on per window.  0 means
 *			unlimited.
 * @reset_interval_ms:	Length of the charge window, in milliseconds.
 * @weight_sz:		Weight of region size in the priority score.
 * @weight_nr_accesses:	Weight of access frequency in the priority score.
 * @weight_age:		Weight of age in the priority score.
 * @goals:		Auto-tuning goals (struct damos_quota_goal).
 *
 * The private fields are maintained by the DAMOS engine; a commit keeps them
 * so that changing parameters does not reset the charge state.
 */
struct damos_quota {
	unsigned long ms;
	unsigned long sz;
	unsigned long reset_interval_ms;
	unsigned int weight_sz;
	unsigned int weight_nr_accesses;
	unsigned int weight_age;
	struct list_head goals;

	/* private: maintained by the DAMOS engine */
	/*
	 * Effective size quota of the current window, in bytes: the stricter
	 * of @sz, the byte budget @ms buys at the measured throughput, and
	 * the auto-tuned quota; 0 while no quota is set.
	 */
	unsigned long esz;
	/* Bytes charged in the current window. */
	unsigned long charged_sz;
	/* Bytes the action only prepared in the current window. */
	unsigned long prepared_sz;
	/*
	 * CPU time spent acting in the current window, in nanoseconds,
	 * including what earlier windows spent beyond @ms (a debt).
	 */
	u64 charged_ns;
	/* Jiffies at which the current window started. */
	unsigned long charged_from;
	/* Where the last window ran out of quota; the next starts there. */
	struct damon_target *charge_target_from;
	unsigned long charge_addr_from;
	/* Lowest priority score acted on in the current window. */
	unsigned int min_score;
	/* Bytes charged and nanoseconds spent acting, for throughput. */
	unsigned long total_charged_sz;
	u64 total_charged_ns;
	/* Auto-tuned quota, in bytes times 10,000. */
	u64 esz_bp;
	/* Windows in which the quota ran out. */
	unsigned long nr_exceeded;
};

/**
 * enum damos_wmark_metric - What the watermarks of a scheme compare with.
 * @DAMOS_WMARK_NONE:		Nothing: the scheme is always active.
 * @DAMOS_WMARK_FREE_MEM_RATE:	Free memory of the system, in per-thousand
 *				of total memory.
 * @NR_DAMOS_WMARK_METRICS:	Number of metrics.
 */
enum damos_wmark_metric {
	DAMOS_WMARK_NONE,		/* always active */
	DAMOS_WMARK_FREE_MEM_RATE,	/* per-thousand of memory free */
	NR_DAMOS_WMARK_METRICS,
};

/**
 * struct damos_watermarks - When a scheme is active.
 * @low:	At or below this the scheme is inactive.
 * @mid:	At or below this (and above @low) the scheme becomes active.
 * @high:	Above this the scheme is inactive.
 * @metric:	What is measured.
 * @interval_us: How often the metric is checked, in microseconds.
 *
 * Between @mid and @high the scheme keeps its previous state, so that it
 * does not flap around a single mark.  Requires @high >= @mid >= @low.
 */
struct damos_watermarks {
	unsigned long low;
	unsigned long mid;
	unsigned long high;
	enum damos_wmark_metric metric;
	unsigned long interval_us;

	/* private: maintained by the DAMOS engine */
	/* Whether the scheme is active now. */
	bool activated;
	/* Monitoring time at which the metric is checked next. */
	u64 next_check_us;
};

/**
 * enum damos_filter_type - What a scheme filter looks at, per folio.
 * @DAMOS_FILTER_TYPE_ANON:	Whether the folio is anonymous memory.
 * @NR_DAMOS_FILTER_TYPES:	Number of filter types.
 */
enum damos_filter_type {
	DAMOS_FILTER_TYPE_ANON,
	NR_DAMOS_FILTER_TYPES,
};

/**
 * struct damos_filter - Excludes (or keeps only) some memory of a region.
 * @type:	What is looked at.
 * @matching:	True: memory of the type is excluded from the action.
 *		False: memory that is not of the type is excluded.
 * @list:	Entry in &damos.filters.
 *
 * Filters are applied per folio by the operations backend.
 */
struct damos_filter {
	enum damos_filter_type type;
	bool matching;
	struct list_head list;
};

/**
 * struct damos_stat - What a scheme did, counted since it was created.
 * @sz_tried:	Bytes of the regions the action was tried on.
 * @nr_tried:	Number of those regions.
 * @sz_applied:	Bytes the action really acted on (for pageout: paged out).
 * @nr_applied:	Regions on which the action did something.
 * @qt_exceeds:	Charge windows in which the quota ran out.
 *
 * The counters only grow; they may be read while the scheme runs.
 */
struct damos_stat {
	unsigned long sz_tried;
	unsigned long nr_tried;
	unsigned long sz_applied;
	unsigned long nr_applied;
	unsigned long qt_exceeds;
};

/**
 * struct damos - An access-pattern-driven memory operation scheme.
 * @action:		What it does.
 * @pattern:		Which regions it does it to.
 * @quota:		How much it may do per charge window.
 * @wmarks:		When it is active.
 * @filters:		Per-folio filters (struct damos_filter).
 * @stat:		What it did.
 */
struct damos {
	enum damos_action action;
	struct damos_access_pattern pattern;
	struct damos_quota quota;
	struct damos_watermarks wmarks;
	struct list_head filters;
	struct damos_stat stat;

	/* private: maintained by the DAMOS engine */
	/* Entry in &damon_ctx.schemes. */
	struct list_head list;
};

/* === Operations backends === */

/**
 * enum damon_ops_id - Identifies an operations backend.
 * @DAMON_OPS_PADDR:	The physical address space.
 * @NR_DAMON_OPS:	Number of backends.
 */
enum damon_ops_id {
	DAMON_OPS_PADDR,
	NR_DAMON_OPS,
};

/**
 * struct damos_apply_budget - How much of a region an action may try.
 * @max_sz:	In: bytes the action may act on at most (%ULONG_MAX: no
 *		limit).  If not 0, the first folio is taken whole even when
 *		it is larger, so that a budget smaller than a folio cannot
 *		stop the action for good: the action may exceed it by less
 *		than one folio.
 * @max_prepare_sz: In: bytes it may only prepare at most (see
 *		@sz_prepared; %ULONG_MAX: no limit), with the same allowance
 *		for the first folio.
 * @stop_ns:	In: the action clock (damos_action_clock_ns()) at which the
 *		time quota is spent and the action stops; 0: no time limit.
 *		Read now and then, not for every page, so the action may
 *		overrun it a little.
 * @sz_tried:	Out: bytes it tried: acted on, or only prepared.  Memory
 *		it passes over at little cost (free or kernel pages, say) is
 *		not counted.
 * @sz_prepared: Out: bytes of @sz_tried the action could not judge yet
 *		and only prepared for a later pass (pageout makes idle the
 *		pages it has not made idle before, and judges them one
 *		minimum age later).  They cost what preparing costs, so
 *		only the time quota and @max_prepare_sz bound them: they are
 *		charged neither to the size quota nor as tried in the
 *		statistics.
 * @end:	In: the end of the region.  Out: where the action stopped,
 *		lower than the region's end only if a limit would otherwise
 *		have been exceeded.  The region is cut there; if the quota
 *		ran out, the next charge window resumes there.
 */
struct damos_apply_budget {
	unsigned long max_sz;
	unsigned long max_prepare_sz;
	u64 stop_ns;
	unsigned long sz_tried;
	unsigned long sz_prepared;
	unsigned long end;
};

/**
 * struct damon_operations - What an address-space backend provides.
 * @id:			Which backend this is, for damon_select_ops().
 * @init:		Prepares the targets before monitoring starts.
 *			Optional.
 * @prepare_access_checks: Picks the sampling address of every region and
 *			clears its accessed state.
 * @check_accesses:	Increments &damon_region.nr_accesses of each region
 *			whose sampling address was accessed since
 *			@prepare_access_checks.  Returns the largest
 *			&damon_region.nr_accesses seen.
 * @nr_quiet_samples:	How many samples from the current one on would
 *			check no region, so that kdamond may sleep through
 *			them: it counts them as taken and calls
 *			@prepare_access_checks and @check_accesses for the
 *			next one only.  The sample that ends a window (see
 *			damon_window_last_sample()) is always taken, so
 *			%UINT_MAX means "none until then".  Optional.
 * @apply_scheme:	Applies the action of a scheme to a region from its
 *			start, honouring the scheme's filters and the budget
 *			(see &struct damos_apply_budget).  Returns the bytes
 *			really acted on.  Optional (then no action works).
 * @get_scheme_score:	Priority of a region for a scheme's action, from 1
 *			(lowest) to %DAMOS_MAX_SCORE; 0 where the action
 *			would achieve nothing, so that the region is skipped
 *			and not charged to the quota.  Optional (then the
 *			engine's generic score is used, and no region is
 *			skipped).
 * @cleanup:		Releases what @init set up.  Optional.
 *
 * All callbacks run in the kdamond thread and may sleep.
 */
struct damon_operations {
	enum damon_ops_id id;
	void (*init)(struct damon_ctx *ctx);
	void (*prepare_access_checks)(struct damon_ctx *ctx);
	unsigned int (*check_accesses)(struct damon_ctx *ctx);
	unsigned int (*nr_quiet_samples)(struct damon_ctx *ctx);
	unsigned long (*apply_scheme)(struct damon_ctx *ctx,
				      struct damon_target *t,
				      struct damon_region *r, struct damos *s,
				      struct damos_apply_budget *budget);
	int (*get_scheme_score)(struct damon_ctx *ctx, struct damon_target *t,
				struct damon_region *r, struct damos *s);
	void (*cleanup)(struct damon_ctx *ctx);
};

/* Highest priority score an operations backend may return. */
#define DAMOS_MAX_SCORE		99

/* === Monitoring contexts === */

/**
 * struct damon_attrs - Monitoring attributes of a context.
 * @min_nr_regions:	Fewest regions per context (at least 3).
 * @max_nr_regions:	Most regions per context.
 * @sample_interval:	Sampling interval, in microseconds.
 * @aggr_interval:	Aggregation interval, in microseconds.
 *
 * Valid attributes have a non-zero @sample_interval, @aggr_interval at least
 * @sample_interval, @min_nr_regions at least 3 and at most @max_nr_regions.
 */
struct damon_attrs {
	unsigned long min_nr_regions;
	unsigned long max_nr_regions;
	unsigned long sample_interval;
	unsigned long aggr_interval;
};

/**
 * struct damon_callback - Hooks a client of DAMON may set.
 * @private:		For the client's own use.
 * @after_aggregation:	Called after each aggregation interval, after the
 *			schemes were applied and before the regions are
 *			adapted.
 * @before_terminate:	Called once when kdamond is about to stop.
 *
 * The hooks run in the kdamond thread.  A non-zero return from
 * @after_aggregation stops monitoring.
 */
struct damon_callback {
	void *private;
	int (*after_aggregation)(struct damon_ctx *ctx);
	void (*before_terminate)(struct damon_ctx *ctx);
};

/**
 * struct damon_call_request - A function to run in the kdamond thread.
 * @fn:		The function; its return value is stored in @ret.
 * @data:	Its argument.
 * @ret:	What @fn returned.
 * @done:	Completed once @fn has run (or could not run).
 * @list:	Entry in the context's request list.
 */
struct damon_call_request {
	int (*fn)(struct damon_ctx *ctx, void *data);
	void *data;
	int ret;
	struct completion done;
	struct list_head list;
};

/**
 * struct damon_ctx - A monitoring context.
 * @attrs:		Monitoring attributes.
 * @min_region_sz:	Smallest region size, in bytes (a power of two,
 *			%PAGE_SIZE by default).  Regions are aligned to it.
 * @ops:		The operations backend.
 * @ops_private:	What @ops keeps from one callback to another: set up
 *			by its init() and released by its cleanup(), else
 *			NULL.
 * @callback:		Client hooks.
 * @targets:		The targets (struct damon_target).
 * @schemes:		The schemes (struct damos).
 * @kdamond:		The kdamond thread while running, else NULL.
 * @kdamond_lock:	Serialises starting and stopping kdamond and
 *			protects @kdamond.
 *
 * The fields after @kdamond_lock are private to the DAMON core (the DAMOS
 * engine may read the monitoring time).  While kdamond runs, only the
 * kdamond thread touches the targets, schemes and attributes; others change
 * them through damon_commit_ctx() or damon_call().
 */
struct damon_ctx {
	struct damon_attrs attrs;
	unsigned long min_region_sz;
	struct damon_operations ops;
	void *ops_private;
	struct damon_callback callback;
	struct list_head targets;
	struct list_head schemes;

	struct task_struct *kdamond;
	struct mutex kdamond_lock;	/* start/stop; protects @kdamond */

	/* private: for the DAMON core */
	/* Protects @call_requests and @kdamond_active. */
	spinlock_t call_lock;
	/* kdamond serves @call_requests; false once it is on its way out. */
	bool kdamond_active;
	/* Pending struct damon_call_request. */
	struct list_head call_requests;
	/* Samples taken in the current aggregation window. */
	unsigned int window_nr_samples;
	/* The sample being checked ends the aggregation window. */
	bool window_last_sample;
	/* @now_us by which the current aggregation window ends. */
	u64 next_aggregation_us;
	/* Monitoring time, in microseconds since kdamond started. */
	u64 now_us;
	/* @now_us up to which the regions' ages count the time. */
	u64 aged_us;
};

/* === Iterators === */

#define damon_for_each_region(r, t) \
	list_for_each_entry(r, &(t)->regions, list)

#define damon_for_each_target(t, ctx) \
	list_for_each_entry(t, &(ctx)->targets, list)

#define damon_for_each_scheme(s, ctx) \
	list_for_each_entry(s, &(ctx)->schemes, list)

#define damos_for_each_filter(f, s) \
	list_for_each_entry(f, &(s)->filters, list)

#define damos_for_each_quota_goal(g, q) \
	list_for_each_entry(g, &(q)->goals, list)

/* The _safe variants allow freeing the current entry. */
#define damon_for_each_region_safe(r, next, t) \
	list_for_each_entry_safe(r, next, &(t)->regions, list)

#define damon_for_each_target_safe(t, next, ctx) \
	list_for_each_entry_safe(t, next, &(ctx)->targets, list)

#define damon_for_each_scheme_safe(s, next, ctx) \
	list_for_each_entry_safe(s, next, &(ctx)->schemes, list)

#define damos_for_each_filter_safe(f, next, s) \
	list_for_each_entry_safe(f, next, &(s)->filters, list)

#define damos_for_each_quota_goal_safe(g, next, q) \
	list_for_each_entry_safe(g, next, &(q)->goals, list)

/**
 * damon_region_sz() - Size of a region, in bytes.
 * @r:	The region.
 *
 * Return: the size of @r.
 */
static inline unsigned long damon_region_sz(const struct damon_region *r)
{
	return r->ar.end - r->ar.start;
}

/**
 * damon_window_sample() - Which sample of its aggregation window is taken.
 * @ctx:	The context.
 *
 * Samples kdamond slept through count (see
 * &damon_operations.nr_quiet_samples).  For operations that look at some
 * regions in one sample of a few only.
 *
 * Context: valid in &damon_operations.nr_quiet_samples (the sample about
 * to be taken) and &damon_operations.check_accesses (the sample being
 * checked) only.
 * Return: 0 in the first sample of a window, 1 in the second, ...
 */
static inline unsigned int damon_window_sample(const struct damon_ctx *ctx)
{
	return ctx->window_nr_samples;
}

/**
 * damon_window_last_sample() - Whether the sample being checked ends its
 * aggregation window.
 * @ctx:	The context.
 *
 * For operations that look at some regions once per window only: this is
 * the sample to do it in, as the window is aggregated right after it.  A
 * window ends when it holds all its samples or when its time is up,
 * whichever comes first: this is not always the sample numbered one less
 * than the aggregation interval divided by the sampling interval.
 *
 * Context: valid in &damon_operations.check_accesses only.
 * Return: true in the last sample of a window.
 */
static inline bool damon_window_last_sample(const struct damon_ctx *ctx)
{
	return ctx->window_last_sample;
}

#ifdef CONFIG_DAMON

/* regions.c */
struct damon_region *damon_new_region(unsigned long start, unsigned long end);
void damon_add_region(struct damon_region *r, struct damon_target *t);
void damon_insert_region_after(struct damon_region *r,
			       struct damon_region *prev,
			       struct damon_target *t);
void damon_destroy_region(struct damon_region *r, struct damon_target *t);
int damon_set_regions(struct damon_target *t,
		      const struct damon_addr_range *ranges,
		      unsigned int nr_ranges, unsigned long min_region_sz);

/* core.c */
struct damon_target *damon_new_target(void);
void damon_add_target(struct damon_ctx *ctx, struct damon_target *t);
void damon_destroy_target(struct damon_target *t);
unsigned int damon_nr_regions(const struct damon_ctx *ctx);

struct damon_ctx *damon_new_ctx(void);
void damon_destroy_ctx(struct damon_ctx *ctx);
int damon_validate_attrs(const struct damon_attrs *attrs);
int damon_set_attrs(struct damon_ctx *ctx, const struct damon_attrs *attrs);
int damon_register_ops(const struct damon_operations *ops);
void damon_unregister_ops(enum damon_ops_id id);
int damon_select_ops(struct damon_ctx *ctx, enum damon_ops_id id);

/* kdamond.c */
int damon_start(struct damon_ctx *ctx);
int damon_stop(struct damon_ctx *ctx);
bool damon_is_running(struct damon_ctx *ctx);
int damon_kdamond_pid(struct damon_ctx *ctx);
int damon_call(struct damon_ctx *ctx,
	       int (*fn)(struct damon_ctx *ctx, void *data), void *data);

/* commit.c */
int damon_commit_ctx(struct damon_ctx *dst, struct damon_ctx *src);

/* schemes.c */
struct damos *damos_new_scheme(const struct damos_access_pattern *pattern,
			       enum damos_action action,
			       const struct damos_quota *quota,
			       const struct damos_watermarks *wmarks);
void damon_add_scheme(struct damon_ctx *ctx, struct damos *s);
void damon_destroy_scheme(struct damos *s);
int damos_validate_scheme(const struct damos *s);
struct damos_filter *damos_new_filter(enum damos_filter_type type,
				      bool matching);
bool damos_filter_out_folio(const struct damos *s, const struct folio *folio);
void damos_destroy_filter(struct damos_filter *f);
void damos_add_filter(struct damos *s, struct damos_filter *f);

/* quota.c */
struct damos_quota_goal *damos_new_quota_goal(enum damos_quota_goal_metric m,
					      unsigned long target_value);
void damos_add_quota_goal(struct damos_quota *q, struct damos_quota_goal *g);
void damos_destroy_quota_goal(struct damos_quota_goal *g);

#endif /* CONFIG_DAMON */

#endif /* _LINUX_DAMON_H */
