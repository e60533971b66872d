/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DAMON_RECLAIM internals shared with its KUnit suite only.
 */
#ifndef _MM_DAMON_RECLAIM_H
#define _MM_DAMON_RECLAIM_H

#include <linux/bits.h>

#include "modules-common.h"

/**
 * struct damon_reclaim_inputs - The tunable parameters of DAMON_RECLAIM.
 * @common:			The parameters every module shares.
 * @min_age_us:			min_age: how long a region must have stayed
 *				unaccessed to be paged out.
 * @quota_ms:			quota_ms: time quota per reset interval, 0
 *				for none.
 * @quota_sz_bytes:		quota_sz: size quota per reset interval, 0
 *				for none.
 * @quota_reset_interval_ms:	quota_reset_interval_ms: quota window.
 * @quota_mem_pressure_us:	quota_mem_pressure_us: memory PSI stall time
 *				per window to aim at, 0 for no such goal.
 * @quota_autotune_feedback:	quota_autotune_feedback: user feedback, aims
 *				at 10000, 0 for no such goal.
 * @skip_anon:			skip_anon: leave anonymous memory alone.
 * @dry_run:			dry_run: count what would be paged out, page
 *				out nothing.
 */
struct damon_reclaim_inputs {
	struct damon_modules_common_inputs common;
	unsigned long min_age_us;
	unsigned long quota_ms;
	unsigned long quota_sz_bytes;
	unsigned long quota_reset_interval_ms;
	unsigned long quota_mem_pressure_us;
	unsigned long quota_autotune_feedback;
	bool skip_anon;
	bool dry_run;
};

/* Bit of damon_reclaim_check_inputs(): quota_reset_interval_ms is 0. */
#define DAMON_RECLAIM_BAD_QUOTA_RESET	BIT(16)

/* Value quota_autotune_feedback aims at. */
#define DAMON_RECLAIM_FEEDBACK_TARGET	10000UL

unsigned int damon_reclaim_check_inputs(const struct damon_reclaim_inputs *in);
struct damos *damon_reclaim_new_scheme(const struct damon_reclaim_inputs *in);

#endif /* _MM_DAMON_RECLAIM_H */
