// SPDX-License-Identifier: GPL-2.0
/*
 * DAMON_RECLAIM: proactive reclaim of memory that stayed cold for a while.
 *
 * One DAMOS scheme on the physical address space pages out regions that
 * DAMON found unaccessed for at least min_age, oldest first, within time and
 * size quotas, and only while free memory lies between the watermarks.  All
 * knobs are parameters under /sys/module/damon_reclaim/parameters/ and on the
 * kernel command line (damon_reclaim.<name>=<value>).
 */

#define pr_fmt(fmt) "damon_reclaim: " fmt

#include <linux/damon.h>
#include <linux/err.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "internal.h"
#include "modules-common.h"
#include "reclaim.h"

#ifdef MODULE_PARAM_PREFIX
#undef MODULE_PARAM_PREFIX
#endif
#define MODULE_PARAM_PREFIX "damon_reclaim."

static struct damon_ctx *damon_reclaim_build_ctx(void);

static struct damon_reclaim_inputs damon_reclaim_in;

static struct damon_modules_runner damon_reclaim_runner =
	DAMON_MODULES_RUNNER_INIT(damon_reclaim_runner, "damon_reclaim",
				  damon_reclaim_build_ctx,
				  &damon_reclaim_in.common);

/* Refused writes are recorded here so a bad boot line does not enable. */
#define DAMON_RECLAIM_REFUSED	(&damon_reclaim_runner.boot_refused)

/* === Parameters === */

/* Units and defaults are those of the upstream module, for compatibility. */
static struct damon_reclaim_inputs damon_reclaim_in = {
	.common = {
		.attrs = {
			.sample_interval = 5000,
			.aggr_interval = 100000,
			.min_nr_regions = 10,
			.max_nr_regions = 1000,
		},
		.wmarks = {
			.metric = DAMOS_WMARK_FREE_MEM_RATE,
			.interval_us = 5000000,
			.high = 500,
			.mid = 400,
			.low = 200,
		},
	},
	.min_age_us = 120000000,
	.quota_ms = 10,
	.quota_sz_bytes = 128 * 1024 * 1024,
	.quota_reset_interval_ms = 1000,
};

/* Run DAMON_RECLAIM (reads the real state). */
module_param_cb(enabled, &damon_modules_enabled_ops, &damon_reclaim_runner,
		0600);

/* Write Y to apply the other parameters to the running instance. */
module_param_cb(commit_inputs, &damon_modules_commit_ops,
		&damon_reclaim_runner, 0600);

/* Microseconds a region must stay unaccessed. */
DAMON_MODULES_ULONG_PARAM(min_age, damon_reclaim_in.min_age_us, 0,
			  ULONG_MAX, DAMON_RECLAIM_REFUSED);

/* Milliseconds of reclaim work per window, 0: no limit. */
DAMON_MODULES_ULONG_PARAM(quota_ms, damon_reclaim_in.quota_ms, 0, ULONG_MAX,
			  DAMON_RECLAIM_REFUSED);

/* Bytes tried per window, 0: no limit. */
DAMON_MODULES_ULONG_PARAM(quota_sz, damon_reclaim_in.quota_sz_bytes, 0,
			  ULONG_MAX, DAMON_RECLAIM_REFUSED);

/* Quota window, in milliseconds. */
DAMON_MODULES_ULONG_PARAM(quota_reset_interval_ms,
			  damon_reclaim_in.quota_reset_interval_ms, 1,
			  ULONG_MAX, DAMON_RECLAIM_REFUSED);

/* Memory stall (PSI some) per window to aim at, 0: no goal. */
DAMON_MODULES_ULONG_PARAM(quota_mem_pressure_us,
			  damon_reclaim_in.quota_mem_pressure_us, 0,
			  ULONG_MAX, DAMON_RECLAIM_REFUSED);

/* User feedback aiming at 10000, 0: no goal. */
DAMON_MODULES_ULONG_PARAM(quota_autotune_feedback,
			  damon_reclaim_in.quota_autotune_feedback, 0,
			  ULONG_MAX, DAMON_RECLAIM_REFUSED);

/* Sampling interval, in microseconds. */
DAMON_MODULES_ULONG_PARAM(sample_interval,
			  damon_reclaim_in.common.attrs.sample_interval, 1,
			  ULONG_MAX, DAMON_RECLAIM_REFUSED);

/* Aggregation interval, in microseconds. */
DAMON_MODULES_ULONG_PARAM(aggr_interval,
			  damon_reclaim_in.common.attrs.aggr_interval, 1,
			  ULONG_MAX, DAMON_RECLAIM_REFUSED);

/* Fewest monitoring regions. */
DAMON_MODULES_ULONG_PARAM(min_nr_regions,
			  damon_reclaim_in.common.attrs.min_nr_regions,
			  DAMON_MODULES_MIN_NR_REGIONS,
			  DAMON_MODULES_MAX_NR_REGIONS, DAMON_RECLAIM_REFUSED);

/* Most monitoring regions. */
DAMON_MODULES_ULONG_PARAM(max_nr_regions,
			  damon_reclaim_in.common.attrs.max_nr_regions,
			  DAMON_MODULES_MIN_NR_REGIONS,
			  DAMON_MODULES_MAX_NR_REGIONS, DAMON_RECLAIM_REFUSED);

/* Microseconds between two checks of the watermarks. */
DAMON_MODULES_ULONG_PARAM(wmarks_interval,
			  damon_reclaim_in.common.wmarks.interval_us, 1,
			  ULONG_MAX, DAMON_RECLAIM_REFUSED);

/* Free memory per-thousand above which to idle. */
DAMON_MODULES_ULONG_PARAM(wmarks_high, damon_reclaim_in.common.wmarks.high,
			  0, DAMON_MODULES_MAX_WMARK_PERMIL,
			  DAMON_RECLAIM_REFUSED);

/* Free memory per-thousand below which to work. */
DAMON_MODULES_ULONG_PARAM(wmarks_mid, damon_reclaim_in.common.wmarks.mid,
			  0, DAMON_MODULES_MAX_WMARK_PERMIL,
			  DAMON_RECLAIM_REFUSED);

/* Free memory per-thousand below which to leave it to the kernel. */
DAMON_MODULES_ULONG_PARAM(wmarks_low, damon_reclaim_in.common.wmarks.low,
			  0, DAMON_MODULES_MAX_WMARK_PERMIL,
			  DAMON_RECLAIM_REFUSED);

/* Start of the one physical range to monitor, 0: all System RAM. */
DAMON_MODULES_ULONG_PARAM(monitor_region_start,
			  damon_reclaim_in.common.region_start, 0, ULONG_MAX,
			  DAMON_RECLAIM_REFUSED);

/* End of the one physical range to monitor, 0: all System RAM. */
DAMON_MODULES_ULONG_PARAM(monitor_region_end,
			  damon_reclaim_in.common.region_end, 0, ULONG_MAX,
			  DAMON_RECLAIM_REFUSED);

/* Do not page out anonymous memory. */
DAMON_MODULES_BOOL_PARAM(skip_anon, damon_reclaim_in.skip_anon,
			 DAMON_RECLAIM_REFUSED);

/*
 * Count in the statistics what would be paged out, but page out nothing:
 * to see what DAMON_RECLAIM would take before letting it.
 */
DAMON_MODULES_BOOL_PARAM(dry_run, damon_reclaim_in.dry_run,
			 DAMON_RECLAIM_REFUSED);

/* PID of the running kdamond, -1 when off. */
module_param_cb(kdamond_pid, &damon_modules_kdamond_pid_ops,
		&damon_reclaim_runner, 0400);

/* The System RAM ranges watched while running. */
module_param_cb(monitored_ranges, &damon_modules_monitored_ranges_ops,
		&damon_reclaim_runner, 0400);

/* What the scheme did, copied from it by kdamond every aggregation. */
static struct damos_stat damon_reclaim_stat;

module_param_cb(nr_reclaim_tried_regions, &damon_modules_read_only_ulong_ops,
		&damon_reclaim_stat.nr_tried, 0400);
module_param_cb(bytes_reclaim_tried_regions,
		&damon_modules_read_only_ulong_ops,
		&damon_reclaim_stat.sz_tried, 0400);
module_param_cb(nr_reclaimed_regions, &damon_modules_read_only_ulong_ops,
		&damon_reclaim_stat.nr_applied, 0400);
module_param_cb(bytes_reclaimed_regions, &damon_modules_read_only_ulong_ops,
		&damon_reclaim_stat.sz_applied, 0400);
module_param_cb(nr_quota_exceeds, &damon_modules_read_only_ulong_ops,
		&damon_reclaim_stat.qt_exceeds, 0400);

/* === Checking and building === */

/**
 * damon_reclaim_check_inputs() - Checks DAMON_RECLAIM parameters as a whole.
 * @in:	The parameter values.
 *
 * Context: Any context.
 * Return: 0 if DAMON_RECLAIM can run with @in, else a mask of the
 * DAMON_MODULES_BAD_* and DAMON_RECLAIM_BAD_* bits of the broken rules.
 */
unsigned int damon_reclaim_check_inputs(const struct damon_reclaim_inputs *in)
{
	unsigned int errors = damon_modules_check_inputs(&in->common);

	if (!in->quota_reset_interval_ms)
		errors |= DAMON_RECLAIM_BAD_QUOTA_RESET;
	return errors;
}

static void damon_reclaim_report_inputs(const struct damon_reclaim_inputs *in,
					unsigned int errors)
{
	damon_modules_report_inputs("damon_reclaim", &in->common, errors);
	if (errors & DAMON_RECLAIM_BAD_QUOTA_RESET)
		pr_err("quota_reset_interval_ms must not be 0\n");
}

static int damon_reclaim_add_goal(struct damos *s,
				  enum damos_quota_goal_metric metric,
				  unsigned long target,
				  unsigned long current_value)
{
	struct damos_quota_goal *g = damos_new_quota_goal(metric, target);

	if (!g)
		return -ENOMEM;
	g->current_value = current_value;
	damos_add_quota_goal(&s->quota, g);
	return 0;
}

/**
 * damon_reclaim_new_scheme() - Makes the pageout scheme of DAMON_RECLAIM.
 * @in:	The parameter values, already checked.
 *
 * The scheme pages out regions of at least a page that were not accessed in
 * any sample for at least @in->min_age_us (in aggregation windows of
 * @in->common.attrs, saturating instead of wrapping), oldest first, within
 * the quotas and free-memory watermarks of @in.  Quota goals are added for
 * the non-zero quota_mem_pressure_us and quota_autotune_feedback, and an
 * anonymous-memory filter for skip_anon.  With @in->dry_run the scheme only
 * counts (%DAMOS_STAT).
 *
 * Context: Process context, may sleep (allocates).
 * Return: The new scheme, or NULL if out of memory.
 */
struct damos *damon_reclaim_new_scheme(const struct damon_reclaim_inputs *in)
{
	struct damos_access_pattern pattern = {
		.min_sz_region = PAGE_SIZE,
		.max_sz_region = ULONG_MAX,
		.min_nr_accesses = 0,
		.max_nr_accesses = 0,
		.min_age_region = damon_us_to_aggr_windows(&in->common.attrs,
							   in->min_age_us),
		.max_age_region = UINT_MAX,
	};
	struct damos_quota quota = {
		.ms = in->quota_ms,
		.sz = in->quota_sz_bytes,
		.reset_interval_ms = in->quota_reset_interval_ms,
		/* Only age sets the priority: the coldest for longest first. */
		.weight_sz = 0,
		.weight_nr_accesses = 0,
		.weight_age = 1,
	};
	struct damos_watermarks wmarks = {
		.metric = DAMOS_WMARK_FREE_MEM_RATE,
		.interval_us = in->common.wmarks.interval_us,
		.high = in->common.wmarks.high,
		.mid = in->common.wmarks.mid,
		.low = in->common.wmarks.low,
	};
	struct damos_filter *filter;
	struct damos *s;

	s = damos_new_scheme(&pattern, in->dry_run ? DAMOS_STAT : DAMOS_PAGEOUT,
			     &quota, &wmarks);
	if (!s)
		return NULL;

	if (in->quota_mem_pressure_us &&
	    damon_reclaim_add_goal(s, DAMOS_QUOTA_SOME_MEM_PSI_US,
				   in->quota_mem_pressure_us, 0))
		goto fail;
	if (in->quota_autotune_feedback &&
	    damon_reclaim_add_goal(s, DAMOS_QUOTA_USER_INPUT,
				   DAMON_RECLAIM_FEEDBACK_TARGET,
				   in->quota_autotune_feedback))
		goto fail;
	if (in->skip_anon) {
		filter = damos_new_filter(DAMOS_FILTER_TYPE_ANON, true);
		if (!filter)
			goto fail;
		damos_add_filter(s, filter);
	}
	return s;

fail:
	damon_destroy_scheme(s);
	return NULL;
}

/* The System RAM within monitor_region_start and _end, or all of it. */
static int damon_reclaim_set_regions(struct damon_ctx *ctx,
				     struct damon_target *t,
				     const struct damon_reclaim_inputs *in)
{
	struct damon_addr_range *ranges;
	int nr, err;

	nr = damon_modules_ram_ranges(in->common.region_start,
				      in->common.region_end, &ranges);
	if (nr == -ENOENT) {
		pr_err("no System RAM between monitor_region_start (%#lx) and monitor_region_end (%#lx)\n",
		       in->common.region_start, in->common.region_end);
		return -EINVAL;
	}
	if (nr < 0)
		return nr;
	err = damon_set_regions(t, ranges, nr, ctx->min_region_sz);
	kfree(ranges);
	return err;
}

/* === kdamond callbacks === */

static void damon_reclaim_copy_stat(struct damon_ctx *ctx)
{
	struct damos *s;

	damon_for_each_scheme(s, ctx)
		damon_reclaim_stat = s->stat;
}

static int damon_reclaim_after_aggregation(struct damon_ctx *ctx)
{
	damon_reclaim_copy_stat(ctx);
	return 0;
}

static void damon_reclaim_before_terminate(struct damon_ctx *ctx)
{
	damon_reclaim_copy_stat(ctx);
}

static void damon_reclaim_set_callbacks(struct damon_ctx *ctx)
{
	ctx->callback.after_aggregation = damon_reclaim_after_aggregation;
	ctx->callback.before_terminate = damon_reclaim_before_terminate;
}

/*
 * Builds a parameter context from the current values, for the runner to
 * commit into the module's context, which keeps its own hooks.  Called with
 * the runner lock held.
 */
static struct damon_ctx *damon_reclaim_build_ctx(void)
{
	const struct damon_reclaim_inputs *in = &damon_reclaim_in;
	unsigned int errors = damon_reclaim_check_inputs(in);
	struct damon_target *t;
	struct damon_ctx *ctx;
	struct damos *s;
	int err;

	if (errors) {
		damon_reclaim_report_inputs(in, errors);
		return ERR_PTR(-EINVAL);
	}

	ctx = damon_new_ctx();
	if (!ctx)
		return ERR_PTR(-ENOMEM);
	err = damon_select_ops(ctx, DAMON_OPS_PADDR);
	if (err) {
		pr_err("physical address operations unavailable (%d)\n", err);
		goto out;
	}
	err = damon_set_attrs(ctx, &in->common.attrs);
	if (err) {
		pr_err("monitoring attributes refused by DAMON (%d)\n", err);
		goto out;
	}

	err = -ENOMEM;
	t = damon_new_target();
	if (!t)
		goto out;
	damon_add_target(ctx, t);
	err = damon_reclaim_set_regions(ctx, t, in);
	if (err) {
		pr_err("setting the monitoring regions failed (%d)\n", err);
		goto out;
	}

	err = -ENOMEM;
	s = damon_reclaim_new_scheme(in);
	if (!s)
		goto out;
	damon_add_scheme(ctx, s);
	err = damos_validate_scheme(s);
	if (err) {
		pr_err("scheme refused by DAMOS (%d)\n", err);
		goto out;
	}
	return ctx;

out:
	damon_destroy_ctx(ctx);
	return ERR_PTR(err);
}

/* === Initialization === */

/*
 * Late, so that the DAMON core and the physical address operations are up
 * before a boot command line asks to enable us.
 */
static int __init damon_reclaim_init(void)
{
	struct damon_ctx *ctx = damon_new_ctx();

	if (ctx && damon_select_ops(ctx, DAMON_OPS_PADDR)) {
		damon_destroy_ctx(ctx);
		ctx = NULL;
	}
	if (ctx)
		damon_reclaim_set_callbacks(ctx);
	/* Failures are logged; they must not fail the boot. */
	if (damon_modules_follow_hotplug(&damon_reclaim_runner))
		pr_warn("memory hotplug will not be followed\n");
	damon_modules_runner_init(&damon_reclaim_runner, ctx);
	return 0;
}
late_initcall(damon_reclaim_init);
