/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the built-in DAMON modules (DAMON_RECLAIM and any later one) share:
 * module parameters that refuse impossible values at write time, the check
 * of values that are only wrong together, and the enable/commit life cycle
 * of one monitoring context driven by "enabled" and "commit_inputs".
 */
#ifndef _MM_DAMON_MODULES_COMMON_H
#define _MM_DAMON_MODULES_COMMON_H

#include <linux/bits.h>
#include <linux/damon.h>
#include <linux/limits.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/workqueue.h>

/* === Parameters validated when written === */

/**
 * struct damon_modules_ulong_param - An unsigned long module parameter with
 * an inclusive range of acceptable values.
 * @value:	The variable the parameter reads and writes.
 * @min:	Smallest acceptable value.
 * @max:	Largest acceptable value.
 * @refused:	Where the name of a parameter whose write was refused is
 *		stored, so that a module can tell that its boot command line
 *		was not taken whole.  May be NULL.
 */
struct damon_modules_ulong_param {
	unsigned long *value;
	unsigned long min;
	unsigned long max;
	const char **refused;
};

extern const struct kernel_param_ops damon_modules_ulong_param_ops;

int damon_modules_parse_ulong(const char *val, unsigned long min,
			      unsigned long max, unsigned long *res);

/*
 * Declares parameter @name (0600) for @var, accepting only @lo..@hi.  Uses
 * the MODULE_PARAM_PREFIX of the including file.
 */
#define DAMON_MODULES_ULONG_PARAM(name, var, lo, hi, refused_name)	\
	static struct damon_modules_ulong_param damon_modules_param_##name = { \
		.value = &(var),					\
		.min = (lo),						\
		.max = (hi),						\
		.refused = (refused_name),				\
	};								\
	module_param_cb(name, &damon_modules_ulong_param_ops,		\
			&damon_modules_param_##name, 0600)

/**
 * struct damon_modules_bool_param - A bool module parameter that records
 * refused writes.
 * @value:	The variable the parameter reads and writes.
 * @refused:	As in &struct damon_modules_ulong_param.
 */
struct damon_modules_bool_param {
	bool *value;
	const char **refused;
};

extern const struct kernel_param_ops damon_modules_bool_param_ops;

/* Declares bool parameter @name (0600) for @var. */
#define DAMON_MODULES_BOOL_PARAM(name, var, refused_name)		\
	static struct damon_modules_bool_param damon_modules_param_##name = { \
		.value = &(var),					\
		.refused = (refused_name),				\
	};								\
	module_param_cb(name, &damon_modules_bool_param_ops,		\
			&damon_modules_param_##name, 0600)

/*
 * An unsigned long statistic, read-only (0400): a value given on the kernel
 * command line or written by root is refused with a log line.
 */
extern const struct kernel_param_ops damon_modules_read_only_ulong_ops;

/* Bounds of the parameters every module shares. */
#define DAMON_MODULES_MIN_NR_REGIONS	3UL
/*
 * Each region costs a page check per sample and its bookkeeping: beyond this
 * many, a sample takes longer than kdamond can stay responsive (to a stop or
 * a commit) on a slow or debug kernel, for no finer a picture of memory.
 */
#define DAMON_MODULES_MAX_NR_REGIONS	65536UL
#define DAMON_MODULES_MAX_WMARK_PERMIL	1000UL

/* === Values that are only invalid together === */

/**
 * struct damon_modules_common_inputs - The parameters every built-in module
 * has, as the user set them.
 * @attrs:		Monitoring attributes (sample_interval, aggr_interval,
 *			min_nr_regions, max_nr_regions).
 * @wmarks:		Watermarks (wmarks_interval, wmarks_high, wmarks_mid,
 *			wmarks_low), in per-thousand of free memory.
 * @region_start:	monitor_region_start: first physical address of the
 *			monitored range, or 0 with @region_end 0 for all of
 *			System RAM.
 * @region_end:		monitor_region_end: first address past that range.
 */
struct damon_modules_common_inputs {
	struct damon_attrs attrs;
	struct damos_watermarks wmarks;
	unsigned long region_start;
	unsigned long region_end;
};

/* Bits returned by damon_modules_check_inputs(), one per broken rule. */
#define DAMON_MODULES_BAD_INTERVALS	BIT(0)	/* aggr < sample, or 0 */
#define DAMON_MODULES_BAD_NR_REGIONS	BIT(1)	/* 3 <= min <= max broken */
#define DAMON_MODULES_BAD_WMARKS	BIT(2)	/* 1000 >= high >= mid >= low */
#define DAMON_MODULES_BAD_REGION	BIT(3)	/* set, but not a page or more */
#define DAMON_MODULES_BAD_WMARKS_INTERVAL BIT(4) /* zero */

unsigned int
damon_modules_check_inputs(const struct damon_modules_common_inputs *in);
int damon_modules_ram_ranges(unsigned long start, unsigned long end,
			     struct damon_addr_range **rangesp);
void damon_modules_report_inputs(const char *module,
				 const struct damon_modules_common_inputs *in,
				 unsigned int errors);
bool damon_modules_region_is_set(const struct damon_modules_common_inputs *in);

/* === Life cycle: enabled, commit_inputs, kdamond_pid === */

/**
 * struct damon_modules_runner - Drives the monitoring context of a module
 * from its "enabled" and "commit_inputs" parameters.
 * @name:	Module name, for messages.
 * @build_ctx:	Checks the current parameter values and builds a new,
 *		not running context from them: attributes, targets, schemes
 *		and callbacks.  Returns the context or an ERR_PTR(); logs why
 *		the values were refused.  Called with @lock and the parameter
 *		lock held.
 * @lock:	Serializes starting, stopping and committing.
 * @ctx:	The context of the module, set up by damon_modules_runner_init();
 *		the same one for the whole life of the system.
 * @ready:	Whether damon_modules_runner_init() ran.  Before, writes to
 *		"enabled" are only remembered in @boot_enable.
 * @boot_enable: "enabled" as set on the kernel command line.
 * @boot_refused: Name of a parameter whose write was refused, or NULL.  A
 *		boot command line with a refused parameter does not enable
 *		the module.
 * @inputs:	The module's shared parameters, as the user sets them; NULL
 *		for a module without a monitoring range.
 * @applied:	monitor_region_start and monitor_region_end as last applied
 *		to @ctx (both 0: all System RAM); under @lock.
 * @ram_nb:	Memory hotplug notifier (see damon_modules_follow_hotplug()):
 *		System RAM that comes or goes is watched or dropped by @ctx
 *		while it runs.
 * @ram_work:	Applies a change of System RAM to @ctx, out of the
 *		notifier's context.
 * @watched:	The System RAM ranges @ctx watches (kmalloc()ed), as last
 *		applied or followed; under @lock.
 * @nr_watched:	Number of @watched ranges.
 *
 * The first target of @ctx covers the System RAM within @applied.
 */
struct damon_modules_runner {
	const char *name;
	struct damon_ctx *(*build_ctx)(void);
	struct mutex lock;	/* see @lock above */
	struct damon_ctx *ctx;
	bool ready;
	bool boot_enable;
	const char *boot_refused;
	const struct damon_modules_common_inputs *inputs;
	struct damon_addr_range applied;
	struct notifier_block ram_nb;
	struct work_struct ram_work;
	struct damon_addr_range *watched;
	unsigned int nr_watched;
};

#define DAMON_MODULES_RUNNER_INIT(runner, module, build, common_inputs)	\
	{								\
		.name = (module),					\
		.build_ctx = (build),					\
		.lock = __MUTEX_INITIALIZER((runner).lock),		\
		.inputs = (common_inputs),				\
	}

int damon_modules_runner_init(struct damon_modules_runner *r,
			      struct damon_ctx *ctx);
int damon_modules_follow_hotplug(struct damon_modules_runner *r);
void damon_modules_set_watched(struct damon_modules_runner *r,
			       struct damon_addr_range *ranges, unsigned int nr,
			       const char *why);

#if IS_ENABLED(CONFIG_KUNIT)
int damon_modules_system_ram(struct damon_addr_range *ranges,
			     unsigned int max_nr);
#endif
int damon_modules_set_enabled(struct damon_modules_runner *r, bool on);
bool damon_modules_is_enabled(struct damon_modules_runner *r);
int damon_modules_commit(struct damon_modules_runner *r);

/*
 * Parameter ops taking a struct damon_modules_runner as argument: "enabled"
 * (0600), "commit_inputs" (0600, reads N), "kdamond_pid" (0400) and
 * "monitored_ranges" (0400: the ranges of physical memory watched while
 * running, as "start-end" pairs in hex, end excluded; empty when off).
 */
extern const struct kernel_param_ops damon_modules_enabled_ops;
extern const struct kernel_param_ops damon_modules_commit_ops;
extern const struct kernel_param_ops damon_modules_kdamond_pid_ops;
extern const struct kernel_param_ops damon_modules_monitored_ranges_ops;

#endif /* _MM_DAMON_MODULES_COMMON_H */
