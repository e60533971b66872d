// SPDX-License-Identifier: GPL-2.0
/*
 * Parameter plumbing shared by the built-in DAMON modules.
 *
 * Locking: the kernel serializes every read and write of the parameters of
 * built-in code with its parameter lock, also on the boot command line.  The
 * runner lock nests inside it and serializes starting, stopping and
 * committing, so a context is always built from one consistent snapshot of
 * the parameters.
 */

#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/lockdep.h>
#include <linux/module.h>
#include <linux/printk.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "internal.h"
#include "modules-common.h"

/* === Parameters validated when written === */

/**
 * damon_modules_parse_ulong() - Parses an unsigned long in a range.
 * @val:	The text written to the parameter, possibly NULL.
 * @min:	Smallest acceptable value.
 * @max:	Largest acceptable value.
 * @res:	Where the value is stored on success; untouched on failure.
 *
 * Accepts a decimal number, or a hexadecimal one after "0x", and one
 * trailing newline; no sign.  Leading zeros do not make a number octal:
 * "0100" is one hundred, as a reader of the value would take it.
 *
 * Context: Any context.
 * Return: 0 on success, -EINVAL if @val is missing, malformed, too large for
 * an unsigned long or outside @min..@max.
 */
int damon_modules_parse_ulong(const char *val, unsigned long min,
			      unsigned long max, unsigned long *res)
{
	unsigned int base = 10;
	unsigned long v;

	/* kstrtoul() takes a "+" (and skips the "0x" of base 16 itself). */
	if (!val || val[0] == '+')
		return -EINVAL;
	if (val[0] == '0' && (val[1] == 'x' || val[1] == 'X'))
		base = 16;
	if (kstrtoul(val, base, &v))
		return -EINVAL;
	if (v < min || v > max)
		return -EINVAL;
	*res = v;
	return 0;
}

static int damon_modules_ulong_param_set(const char *val,
					 const struct kernel_param *kp)
{
	const struct damon_modules_ulong_param *p = kp->arg;
	int err;

	err = damon_modules_parse_ulong(val, p->min, p->max, p->value);
	if (err && p->refused)
		*p->refused = kp->name;
	return err;
}

static int damon_modules_ulong_param_get(char *buffer,
					 const struct kernel_param *kp)
{
	const struct damon_modules_ulong_param *p = kp->arg;

	return scnprintf(buffer, PAGE_SIZE, "%lu\n", *p->value);
}

const struct kernel_param_ops damon_modules_ulong_param_ops = {
	.set = damon_modules_ulong_param_set,
	.get = damon_modules_ulong_param_get,
};

static int damon_modules_parse_bool(const char *val, bool *res)
{
	/* A bare "name" on the command line means "name=Y". */
	if (!val)
		val = "Y";
	return kstrtobool(val, res) ? -EINVAL : 0;
}

static int damon_modules_bool_param_set(const char *val,
					const struct kernel_param *kp)
{
	const struct damon_modules_bool_param *p = kp->arg;

	if (damon_modules_parse_bool(val, p->value)) {
		if (p->refused)
			*p->refused = kp->name;
		return -EINVAL;
	}
	return 0;
}

static int damon_modules_bool_param_get(char *buffer,
					const struct kernel_param *kp)
{
	const struct damon_modules_bool_param *p = kp->arg;

	return scnprintf(buffer, PAGE_SIZE, "%c\n", *p->value ? 'Y' : 'N');
}

const struct kernel_param_ops damon_modules_bool_param_ops = {
	.flags = KERNEL_PARAM_OPS_FL_NOARG,
	.set = damon_modules_bool_param_set,
	.get = damon_modules_bool_param_get,
};

/*
 * Read-only parameters (0400) can still be given on the kernel command line,
 * and root may write them: the kernel calls .set for both.
 */
static int damon_modules_read_only_set(const char *val,
				       const struct kernel_param *kp)
{
	pr_warn_ratelimited("%s is read-only: the value given is ignored\n",
			    kp->name);
	return -EPERM;
}

const struct kernel_param_ops damon_modules_read_only_ulong_ops = {
	.set = damon_modules_read_only_set,
	.get = param_get_ulong,
};

/* === Values that are only invalid together === */

/**
 * damon_modules_region_is_set() - Whether one monitoring range was chosen.
 * @in:	The parameter values.
 *
 * Context: Any context.
 * Return: false if monitor_region_start and monitor_region_end are both 0
 * (monitor all System RAM), true otherwise.
 */
bool damon_modules_region_is_set(const struct damon_modules_common_inputs *in)
{
	return in->region_start || in->region_end;
}

/**
 * damon_modules_check_inputs() - Checks the shared parameters as a whole.
 * @in:	The parameter values.
 *
 * Also re-checks what the parameter writes already refuse, so that the
 * result does not depend on how @in was filled.
 *
 * Context: Any context.
 * Return: 0 if DAMON can run with @in, else a mask of DAMON_MODULES_BAD_*
 * bits, one per broken rule.
 */
unsigned int
damon_modules_check_inputs(const struct damon_modules_common_inputs *in)
{
	const struct damon_attrs *a = &in->attrs;
	const struct damos_watermarks *w = &in->wmarks;
	unsigned int errors = 0;

	if (!a->sample_interval || a->aggr_interval < a->sample_interval)
		errors |= DAMON_MODULES_BAD_INTERVALS;
	if (a->min_nr_regions < DAMON_MODULES_MIN_NR_REGIONS ||
	    a->max_nr_regions > DAMON_MODULES_MAX_NR_REGIONS ||
	    a->min_nr_regions > a->max_nr_regions)
		errors |= DAMON_MODULES_BAD_NR_REGIONS;
	if (w->high > DAMON_MODULES_MAX_WMARK_PERMIL ||
	    w->high < w->mid || w->mid < w->low)
		errors |= DAMON_MODULES_BAD_WMARKS;
	if (!w->interval_us)
		errors |= DAMON_MODULES_BAD_WMARKS_INTERVAL;
	if (damon_modules_region_is_set(in) &&
	    (in->region_end <= in->region_start ||
	     in->region_end - in->region_start < PAGE_SIZE))
		errors |= DAMON_MODULES_BAD_REGION;
	return errors;
}

/**
 * damon_modules_report_inputs() - Logs why parameter values were refused.
 * @module:	Module name to start each line with.
 * @in:		The parameter values.
 * @errors:	What damon_modules_check_inputs() returned for @in.
 *
 * Prints one error line per broken rule, naming the parameters involved and
 * their values.
 *
 * Context: Any context.
 */
void damon_modules_report_inputs(const char *module,
				 const struct damon_modules_common_inputs *in,
				 unsigned int errors)
{
	const struct damon_attrs *a = &in->attrs;
	const struct damos_watermarks *w = &in->wmarks;

	if (errors & DAMON_MODULES_BAD_INTERVALS)
		pr_err("%s: aggr_interval (%lu) must be at least sample_interval (%lu), which must not be 0\n",
		       module, a->aggr_interval, a->sample_interval);
	if (errors & DAMON_MODULES_BAD_NR_REGIONS)
		pr_err("%s: min_nr_regions (%lu) must be at least %lu and at most max_nr_regions (%lu)\n",
		       module, a->min_nr_regions, DAMON_MODULES_MIN_NR_REGIONS,
		       a->max_nr_regions);
	if (errors & DAMON_MODULES_BAD_WMARKS)
		pr_err("%s: wmarks_high (%lu), wmarks_mid (%lu) and wmarks_low (%lu) must be ordered high >= mid >= low, at most %lu\n",
		       module, w->high, w->mid, w->low,
		       DAMON_MODULES_MAX_WMARK_PERMIL);
	if (errors & DAMON_MODULES_BAD_WMARKS_INTERVAL)
		pr_err("%s: wmarks_interval must not be 0\n", module);
	if (errors & DAMON_MODULES_BAD_REGION)
		pr_err("%s: monitor_region_start (%#lx) and monitor_region_end (%#lx) must span at least one page, start below end\n",
		       module, in->region_start, in->region_end);
}

/* === Life cycle: enabled, commit_inputs, kdamond_pid === */

/* Records the address ranges the first target of @params covers. */
static void damon_modules_watch_target_of(struct damon_modules_runner *r,
					  const struct damon_ctx *params)
{
	struct damon_addr_range *ranges;
	const struct damon_target *t;
	unsigned int nr;

	if (list_empty(&params->targets))
		return;
	t = list_first_entry(&params->targets, struct damon_target, list);
	if (damon_target_ranges(t, &ranges, &nr) || !nr)
		return;
	damon_modules_set_watched(r, ranges, nr, "");
}

/* Builds a context from the parameters and commits it into @r->ctx. */
static int damon_modules_apply(struct damon_modules_runner *r)
{
	struct damon_ctx *params;
	int err;

	lockdep_assert_held(&r->lock);
	params = r->build_ctx();
	if (IS_ERR(params))
		return PTR_ERR(params);
	err = damon_commit_ctx(r->ctx, params);
	if (!err)
		damon_modules_watch_target_of(r, params);
	damon_destroy_ctx(params);
	if (err) {
		pr_err("%s: applying the parameters failed (%d)\n", r->name,
		       err);
		return err;
	}
	if (r->inputs) {
		r->applied.start = r->inputs->region_start;
		r->applied.end = r->inputs->region_end;
	}
	return 0;
}

/*
 * Forgets the regions of a previous run: their ages say nothing about what
 * happened while the module was off, and trusting them would page out
 * memory that is not cold.
 */
static void damon_modules_forget_regions(struct damon_ctx *ctx)
{
	struct damon_target *t, *next;

	/* Reaps a kdamond that stopped by itself, so nobody else uses ctx. */
	damon_stop(ctx);
	damon_for_each_target_safe(t, next, ctx)
		damon_destroy_target(t);
}

static int damon_modules_start(struct damon_modules_runner *r)
{
	int err;

	lockdep_assert_held(&r->lock);
	damon_modules_forget_regions(r->ctx);
	/* A start says what it watches, whatever the last run did. */
	kfree(r->watched);
	r->watched = NULL;
	r->nr_watched = 0;
	err = damon_modules_apply(r);
	if (err)
		return err;
	err = damon_start(r->ctx);
	if (err)
		pr_err("%s: starting kdamond failed (%d)\n", r->name, err);
	return err;
}

/**
 * damon_modules_runner_init() - Hands a module its context and acts on the
 * boot command line.
 * @r:		The runner of the module.
 * @ctx:	A new context with its operations and callbacks set, or NULL
 *		if it could not be made (then enabling fails with -ENODEV).
 *		It is the module's for the life of the system.
 *
 * Writes to "enabled" made before this call (the boot command line) were
 * only remembered; if one asked to enable the module, it is started now,
 * unless a parameter of the command line was refused.  Any failure is
 * logged, leaves the module off and does not fail the boot.
 *
 * Context: Process context, may sleep.  Call once, from an initcall that
 * runs after the DAMON core and operations are ready.
 * Return: 0 if the module is in the state the command line asked for, else
 * a negative error code.
 */
int damon_modules_runner_init(struct damon_modules_runner *r,
			      struct damon_ctx *ctx)
{
	int err = 0;

	kernel_param_lock(THIS_MODULE);
	mutex_lock(&r->lock);
	r->ctx = ctx;
	r->ready = true;
	if (!ctx) {
		pr_err("%s: cannot be enabled: no monitoring context\n",
		       r->name);
		err = -ENOMEM;
	} else if (r->boot_enable) {
		if (r->boot_refused) {
			pr_err("%s: not enabled: the boot parameter %s had an invalid value\n",
			       r->name, r->boot_refused);
			err = -EINVAL;
		} else {
			err = damon_modules_start(r);
			if (err)
				pr_err("%s: not enabled at boot (%d)\n",
				       r->name, err);
		}
	}
	mutex_unlock(&r->lock);
	kernel_param_unlock(THIS_MODULE);
	return err;
}

/**
 * damon_modules_is_enabled() - Whether the kdamond of a module runs.
 * @r:	The runner of the module.
 *
 * Before damon_modules_runner_init(), reports what the boot command line
 * asked for.
 *
 * Context: Process context, with the parameter lock held.
 * Return: true if running (or asked for at boot), false otherwise.
 */
bool damon_modules_is_enabled(struct damon_modules_runner *r)
{
	if (!r->ready)
		return r->boot_enable;
	return r->ctx && damon_is_running(r->ctx);
}

/**
 * damon_modules_set_enabled() - Starts or stops the kdamond of a module.
 * @r:	The runner of the module.
 * @on:	Whether it should run.
 *
 * Starting checks the parameters, builds the context from them and starts
 * kdamond; on any failure the module stays off.  Asking for the current state
 * does nothing.  Before damon_modules_runner_init() the request is only
 * remembered.
 *
 * Context: Process context, may sleep, with the parameter lock held.
 * Return: 0 on success, a negative error code otherwise (-EINVAL for
 * parameter values that do not fit together).
 */
int damon_modules_set_enabled(struct damon_modules_runner *r, bool on)
{
	int err = 0;

	if (!r->ready) {
		r->boot_enable = on;
		return 0;
	}
	if (!r->ctx)
		return -ENODEV;

	mutex_lock(&r->lock);
	if (on != damon_is_running(r->ctx)) {
		if (on)
			err = damon_modules_start(r);
		else
			err = damon_stop(r->ctx);
	}
	mutex_unlock(&r->lock);
	return err;
}

/**
 * damon_modules_commit() - Applies the current parameters to a running
 * module.
 * @r:	The runner of the module.
 *
 * The new context is checked and committed into the running one before this
 * returns; the DAMON core keeps the quota charge state and statistics of the
 * schemes.  On failure the running kdamond goes on with its previous
 * configuration.  When the module is off, the parameters are only checked.
 *
 * Context: Process context, may sleep, with the parameter lock held.
 * Return: 0 on success, a negative error code otherwise.
 */
int damon_modules_commit(struct damon_modules_runner *r)
{
	struct damon_ctx *params;
	int err = 0;

	if (!r->ready)
		return 0;
	if (!r->ctx)
		return -ENODEV;

	mutex_lock(&r->lock);
	if (damon_is_running(r->ctx)) {
		err = damon_modules_apply(r);
	} else {
		params = r->build_ctx();
		if (IS_ERR(params))
			err = PTR_ERR(params);
		else
			damon_destroy_ctx(params);
	}
	mutex_unlock(&r->lock);
	return err;
}

static int damon_modules_enabled_set(const char *val,
				     const struct kernel_param *kp)
{
	struct damon_modules_runner *r = kp->arg;
	bool on;

	if (damon_modules_parse_bool(val, &on)) {
		if (!r->ready)
			r->boot_refused = kp->name;
		return -EINVAL;
	}
	return damon_modules_set_enabled(r, on);
}

static int damon_modules_enabled_get(char *buffer,
				     const struct kernel_param *kp)
{
	return scnprintf(buffer, PAGE_SIZE, "%c\n",
			 damon_modules_is_enabled(kp->arg) ? 'Y' : 'N');
}

const struct kernel_param_ops damon_modules_enabled_ops = {
	.flags = KERNEL_PARAM_OPS_FL_NOARG,
	.set = damon_modules_enabled_set,
	.get = damon_modules_enabled_get,
};

static int damon_modules_commit_set(const char *val,
				    const struct kernel_param *kp)
{
	bool commit;

	if (damon_modules_parse_bool(val, &commit))
		return -EINVAL;
	return commit ? damon_modules_commit(kp->arg) : 0;
}

static int damon_modules_commit_get(char *buffer,
				    const struct kernel_param *kp)
{
	/* A commit is done when its write returns: none is ever pending. */
	return scnprintf(buffer, PAGE_SIZE, "N\n");
}

const struct kernel_param_ops damon_modules_commit_ops = {
	.flags = KERNEL_PARAM_OPS_FL_NOARG,
	.set = damon_modules_commit_set,
	.get = damon_modules_commit_get,
};

static int damon_modules_kdamond_pid_get(char *buffer,
					 const struct kernel_param *kp)
{
	struct damon_modules_runner *r = kp->arg;
	int pid = -1;

	if (r->ready && r->ctx && damon_is_running(r->ctx))
		pid = damon_kdamond_pid(r->ctx);
	return scnprintf(buffer, PAGE_SIZE, "%d\n", pid > 0 ? pid : -1);
}

static int damon_modules_monitored_ranges_get(char *buffer,
					      const struct kernel_param *kp)
{
	struct damon_modules_runner *r = kp->arg;
	unsigned int i;
	int len = 0;

	if (!r->ready || !r->ctx)
		return scnprintf(buffer, PAGE_SIZE, "\n");
	mutex_lock(&r->lock);
	if (damon_is_running(r->ctx)) {
		for (i = 0; i < r->nr_watched; i++)
			len += scnprintf(buffer + len, PAGE_SIZE - len,
					 "%s%#lx-%#lx", i ? " " : "",
					 r->watched[i].start,
					 r->watched[i].end);
	}
	len += scnprintf(buffer + len, PAGE_SIZE - len, "\n");
	mutex_unlock(&r->lock);
	return len;
}

const struct kernel_param_ops damon_modules_monitored_ranges_ops = {
	.set = damon_modules_read_only_set,
	.get = damon_modules_monitored_ranges_get,
};

const struct kernel_param_ops damon_modules_kdamond_pid_ops = {
	.set = damon_modules_read_only_set,
	.get = damon_modules_kdamond_pid_get,
};
