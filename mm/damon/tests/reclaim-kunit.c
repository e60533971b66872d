// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for DAMON_RECLAIM and the shared module parameter plumbing:
 * what a parameter write accepts, which combinations an enable or a commit
 * refuses, how the boot command line is remembered, and the scheme built
 * from the parameters.
 */

#include <kunit/test.h>
#include <linux/err.h>
#include <linux/limits.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "../internal.h"
#include "../modules-common.h"
#include "../reclaim.h"

/* === Parsing of a single value === */

/* System RAM: sorted, page-aligned ranges covering all of memory. */
static void damon_modules_test_system_ram(struct kunit *test)
{
	const unsigned int room = 64;
	struct damon_addr_range *ranges, first;
	unsigned long total_bytes = 0;
	int nr, i;

	ranges = kunit_kcalloc(test, room, sizeof(*ranges), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ranges);
	nr = damon_modules_system_ram(ranges, room);
	KUNIT_ASSERT_GT(test, nr, 0);
	KUNIT_ASSERT_LE(test, nr, (int)room);

	for (i = 0; i < nr; i++) {
		KUNIT_EXPECT_TRUE(test, PAGE_ALIGNED(ranges[i].start));
		KUNIT_EXPECT_TRUE(test, PAGE_ALIGNED(ranges[i].end));
		KUNIT_EXPECT_LT(test, ranges[i].start, ranges[i].end);
		/* Sorted, apart: touching resources were merged. */
		if (i)
			KUNIT_EXPECT_GT(test, ranges[i].start,
					ranges[i - 1].end);
		total_bytes += ranges[i].end - ranges[i].start;
	}
	KUNIT_EXPECT_GE(test, total_bytes, totalram_pages() << PAGE_SHIFT);

	/* Too little room: the count is the same, the first one stored. */
	first = ranges[0];
	KUNIT_EXPECT_EQ(test, damon_modules_system_ram(NULL, 0), nr);
	memset(ranges, 0, room * sizeof(*ranges));
	KUNIT_EXPECT_EQ(test, damon_modules_system_ram(ranges, 1), nr);
	KUNIT_EXPECT_EQ(test, ranges[0].start, first.start);
	KUNIT_EXPECT_EQ(test, ranges[0].end, first.end);
	KUNIT_EXPECT_EQ(test, ranges[1].end, 0UL);
}

static void damon_modules_test_parse_ulong(struct kunit *test)
{
	unsigned long v = 42;

	KUNIT_EXPECT_EQ(test, damon_modules_parse_ulong("0", 0, 10, &v), 0);
	KUNIT_EXPECT_EQ(test, v, 0UL);
	KUNIT_EXPECT_EQ(test, damon_modules_parse_ulong("10\n", 0, 10, &v), 0);
	KUNIT_EXPECT_EQ(test, v, 10UL);
	KUNIT_EXPECT_EQ(test, damon_modules_parse_ulong("0x10", 0, 100, &v), 0);
	KUNIT_EXPECT_EQ(test, v, 16UL);
	KUNIT_EXPECT_EQ(test, damon_modules_parse_ulong("0X1f\n", 0, 100, &v),
			0);
	KUNIT_EXPECT_EQ(test, v, 31UL);
	/* Leading zeros are decimal, not octal. */
	KUNIT_EXPECT_EQ(test, damon_modules_parse_ulong("0100", 0, 1000, &v), 0);
	KUNIT_EXPECT_EQ(test, v, 100UL);
	KUNIT_EXPECT_EQ(test, damon_modules_parse_ulong("09", 0, 10, &v), 0);
	KUNIT_EXPECT_EQ(test, v, 9UL);
	KUNIT_EXPECT_EQ(test, damon_modules_parse_ulong("18446744073709551615",
							0, ULONG_MAX, &v), 0);
	KUNIT_EXPECT_EQ(test, v, ULONG_MAX);

	/* Refused values leave the old one alone. */
	v = 7;
	KUNIT_EXPECT_EQ(test, damon_modules_parse_ulong("11", 0, 10, &v),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, damon_modules_parse_ulong("0", 1, 10, &v),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, damon_modules_parse_ulong("18446744073709551616",
							0, ULONG_MAX, &v),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, damon_modules_parse_ulong("-1", 0, ULONG_MAX, &v),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, damon_modules_parse_ulong("12abc", 0, ULONG_MAX,
							&v), -EINVAL);
	KUNIT_EXPECT_EQ(test, damon_modules_parse_ulong("", 0, ULONG_MAX, &v),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, damon_modules_parse_ulong(" 5", 0, ULONG_MAX, &v),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, damon_modules_parse_ulong(NULL, 0, ULONG_MAX, &v),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, damon_modules_parse_ulong("0x", 0, ULONG_MAX, &v),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, damon_modules_parse_ulong("+5", 0, ULONG_MAX, &v),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, damon_modules_parse_ulong("0x1g", 0, ULONG_MAX,
							&v), -EINVAL);
	KUNIT_EXPECT_EQ(test, damon_modules_parse_ulong("0x10000000000000000",
							0, ULONG_MAX, &v),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, v, 7UL);
}

/* The set callback of a parameter with the bounds of wmarks_high. */
static void damon_modules_test_ulong_param_ops(struct kunit *test)
{
	unsigned long value = 500;
	const char *refused = NULL;
	struct damon_modules_ulong_param desc = {
		.value = &value,
		.min = 0,
		.max = DAMON_MODULES_MAX_WMARK_PERMIL,
		.refused = &refused,
	};
	struct kernel_param kp = { .name = "test.wmarks_high", .arg = &desc };
	const struct kernel_param_ops *ops = &damon_modules_ulong_param_ops;
	char *buf = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_EXPECT_EQ(test, ops->set("1000", &kp), 0);
	KUNIT_EXPECT_EQ(test, value, 1000UL);
	KUNIT_EXPECT_PTR_EQ(test, refused, (const char *)NULL);

	KUNIT_EXPECT_EQ(test, ops->set("1001", &kp), -EINVAL);
	KUNIT_EXPECT_EQ(test, value, 1000UL);
	KUNIT_EXPECT_STREQ(test, refused, "test.wmarks_high");

	KUNIT_EXPECT_EQ(test, ops->get(buf, &kp), 5);
	KUNIT_EXPECT_STREQ(test, buf, "1000\n");
}

static void damon_modules_test_bool_param_ops(struct kunit *test)
{
	bool value = false;
	const char *refused = NULL;
	struct damon_modules_bool_param desc = {
		.value = &value,
		.refused = &refused,
	};
	struct kernel_param kp = { .name = "test.skip_anon", .arg = &desc };
	const struct kernel_param_ops *ops = &damon_modules_bool_param_ops;

	KUNIT_EXPECT_EQ(test, ops->set("Y\n", &kp), 0);
	KUNIT_EXPECT_TRUE(test, value);
	KUNIT_EXPECT_EQ(test, ops->set("0", &kp), 0);
	KUNIT_EXPECT_FALSE(test, value);
	/* A bare name on the command line means Y. */
	KUNIT_EXPECT_EQ(test, ops->set(NULL, &kp), 0);
	KUNIT_EXPECT_TRUE(test, value);
	KUNIT_EXPECT_EQ(test, ops->set("maybe", &kp), -EINVAL);
	KUNIT_EXPECT_TRUE(test, value);
	KUNIT_EXPECT_STREQ(test, refused, "test.skip_anon");
}

/* === Values that are only invalid together === */

static struct damon_modules_common_inputs damon_modules_test_defaults(void)
{
	struct damon_modules_common_inputs in = {
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
	};

	return in;
}

static void damon_modules_test_check_intervals(struct kunit *test)
{
	struct damon_modules_common_inputs in = damon_modules_test_defaults();

	KUNIT_EXPECT_EQ(test, damon_modules_check_inputs(&in), 0U);
	in.attrs.aggr_interval = in.attrs.sample_interval;
	KUNIT_EXPECT_EQ(test, damon_modules_check_inputs(&in), 0U);
	in.attrs.aggr_interval = in.attrs.sample_interval - 1;
	KUNIT_EXPECT_EQ(test, damon_modules_check_inputs(&in),
			DAMON_MODULES_BAD_INTERVALS);
	in = damon_modules_test_defaults();
	in.attrs.sample_interval = 0;
	KUNIT_EXPECT_EQ(test, damon_modules_check_inputs(&in),
			DAMON_MODULES_BAD_INTERVALS);
	in = damon_modules_test_defaults();
	in.wmarks.interval_us = 0;
	KUNIT_EXPECT_EQ(test, damon_modules_check_inputs(&in),
			DAMON_MODULES_BAD_WMARKS_INTERVAL);
}

static void damon_modules_test_check_nr_regions(struct kunit *test)
{
	struct damon_modules_common_inputs in = damon_modules_test_defaults();

	in.attrs.min_nr_regions = 3;
	in.attrs.max_nr_regions = 3;
	KUNIT_EXPECT_EQ(test, damon_modules_check_inputs(&in), 0U);
	in.attrs.min_nr_regions = 4;
	KUNIT_EXPECT_EQ(test, damon_modules_check_inputs(&in),
			DAMON_MODULES_BAD_NR_REGIONS);
	in.attrs.min_nr_regions = 2;
	KUNIT_EXPECT_EQ(test, damon_modules_check_inputs(&in),
			DAMON_MODULES_BAD_NR_REGIONS);
	in.attrs.min_nr_regions = 3;
	in.attrs.max_nr_regions = DAMON_MODULES_MAX_NR_REGIONS;
	KUNIT_EXPECT_EQ(test, damon_modules_check_inputs(&in), 0U);
#if BITS_PER_LONG == 64
	in.attrs.max_nr_regions = DAMON_MODULES_MAX_NR_REGIONS + 1;
	KUNIT_EXPECT_EQ(test, damon_modules_check_inputs(&in),
			DAMON_MODULES_BAD_NR_REGIONS);
#endif
}

static void damon_modules_test_check_wmarks(struct kunit *test)
{
	struct damon_modules_common_inputs in = damon_modules_test_defaults();

	in.wmarks.high = 1000;
	in.wmarks.mid = 1000;
	in.wmarks.low = 1000;
	KUNIT_EXPECT_EQ(test, damon_modules_check_inputs(&in), 0U);
	in.wmarks.mid = 999;
	in.wmarks.low = 0;
	KUNIT_EXPECT_EQ(test, damon_modules_check_inputs(&in), 0U);
	in.wmarks.high = 1001;
	in.wmarks.mid = 1001;
	KUNIT_EXPECT_EQ(test, damon_modules_check_inputs(&in),
			DAMON_MODULES_BAD_WMARKS);
	in.wmarks.high = 400;
	in.wmarks.mid = 401;
	KUNIT_EXPECT_EQ(test, damon_modules_check_inputs(&in),
			DAMON_MODULES_BAD_WMARKS);
	in.wmarks.mid = 200;
	in.wmarks.low = 201;
	KUNIT_EXPECT_EQ(test, damon_modules_check_inputs(&in),
			DAMON_MODULES_BAD_WMARKS);
}

static void damon_modules_test_check_region(struct kunit *test)
{
	struct damon_modules_common_inputs in = damon_modules_test_defaults();

	/* Both 0: all System RAM. */
	KUNIT_EXPECT_FALSE(test, damon_modules_region_is_set(&in));
	in.region_end = PAGE_SIZE;
	KUNIT_EXPECT_TRUE(test, damon_modules_region_is_set(&in));
	KUNIT_EXPECT_EQ(test, damon_modules_check_inputs(&in), 0U);
	in.region_end = PAGE_SIZE - 1;
	KUNIT_EXPECT_EQ(test, damon_modules_check_inputs(&in),
			DAMON_MODULES_BAD_REGION);
	in.region_start = PAGE_SIZE;
	in.region_end = PAGE_SIZE;
	KUNIT_EXPECT_EQ(test, damon_modules_check_inputs(&in),
			DAMON_MODULES_BAD_REGION);
	in.region_start = 2 * PAGE_SIZE;
	in.region_end = 0;
	KUNIT_EXPECT_EQ(test, damon_modules_check_inputs(&in),
			DAMON_MODULES_BAD_REGION);
	in.region_start = 0;
	in.region_end = ULONG_MAX;
	KUNIT_EXPECT_EQ(test, damon_modules_check_inputs(&in), 0U);
}

static void damon_modules_test_check_reports_every_rule(struct kunit *test)
{
	struct damon_modules_common_inputs in = damon_modules_test_defaults();

	in.attrs.aggr_interval = 1;
	in.attrs.min_nr_regions = 2000;
	in.wmarks.low = 450;
	in.region_start = 10 * PAGE_SIZE;
	in.region_end = 5 * PAGE_SIZE;
	KUNIT_EXPECT_EQ(test, damon_modules_check_inputs(&in),
			DAMON_MODULES_BAD_INTERVALS |
			DAMON_MODULES_BAD_NR_REGIONS |
			DAMON_MODULES_BAD_WMARKS | DAMON_MODULES_BAD_REGION);
}

/* === Life cycle before and after the late initcall === */

static int damon_modules_test_nr_builds;

static struct damon_ctx *damon_modules_test_build_refused(void)
{
	damon_modules_test_nr_builds++;
	return ERR_PTR(-EINVAL);
}

static void damon_modules_test_boot_enable_remembered(struct kunit *test)
{
	struct damon_modules_runner *r = kunit_kzalloc(test, sizeof(*r),
						       GFP_KERNEL);
	struct kernel_param kp = { .name = "test.enabled" };
	char *buf = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	mutex_init(&r->lock);
	r->name = "test";
	r->build_ctx = damon_modules_test_build_refused;
	kp.arg = r;
	damon_modules_test_nr_builds = 0;

	/* Before the initcall, writes are remembered, nothing is built. */
	KUNIT_EXPECT_EQ(test, damon_modules_enabled_ops.set("Y", &kp), 0);
	KUNIT_EXPECT_TRUE(test, r->boot_enable);
	KUNIT_EXPECT_EQ(test, damon_modules_enabled_ops.get(buf, &kp), 2);
	KUNIT_EXPECT_STREQ(test, buf, "Y\n");
	KUNIT_EXPECT_EQ(test, damon_modules_kdamond_pid_ops.get(buf, &kp), 3);
	KUNIT_EXPECT_STREQ(test, buf, "-1\n");
	KUNIT_EXPECT_EQ(test, damon_modules_commit_ops.set("Y", &kp), 0);
	KUNIT_EXPECT_EQ(test, damon_modules_commit_ops.get(buf, &kp), 2);
	KUNIT_EXPECT_STREQ(test, buf, "N\n");
	KUNIT_EXPECT_EQ(test, damon_modules_test_nr_builds, 0);

	/* A malformed value is refused and remembered as refused. */
	KUNIT_EXPECT_EQ(test, damon_modules_enabled_ops.set("perhaps", &kp),
			-EINVAL);
	KUNIT_EXPECT_STREQ(test, r->boot_refused, "test.enabled");
	KUNIT_EXPECT_TRUE(test, r->boot_enable);
}

/*
 * The boot command line parser calls .set of any parameter it is given,
 * read-only ones included, and so may root through sysfs: every parameter
 * of DAMON_RECLAIM has one, and the read-only ones refuse any value.
 */
static void damon_reclaim_test_every_param_has_set(struct kunit *test)
{
	static const char prefix[] = "damon_reclaim.";
	const struct kernel_param *kp;
	char *buf = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	char *before = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	unsigned int nr = 0, nr_read_only = 0;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, before);
	for (kp = __start___param; kp < __stop___param; kp++) {
		if (strncmp(kp->name, prefix, strlen(prefix)))
			continue;
		nr++;
		KUNIT_EXPECT_NOT_NULL_MSG(test, kp->ops->set, "%s", kp->name);
		KUNIT_EXPECT_NOT_NULL_MSG(test, kp->ops->get, "%s", kp->name);
		if ((kp->perm & 0222) || !kp->ops->set || !kp->ops->get)
			continue;
		nr_read_only++;
		kp->ops->get(before, kp);
		KUNIT_EXPECT_EQ_MSG(test, kp->ops->set("5", kp), -EPERM, "%s",
				    kp->name);
		KUNIT_EXPECT_EQ_MSG(test, kp->ops->set(NULL, kp), -EPERM, "%s",
				    kp->name);
		kp->ops->get(buf, kp);
		KUNIT_EXPECT_STREQ_MSG(test, buf, before, "%s", kp->name);
	}
	/* 18 tunables, enabled, commit_inputs and 7 read-only. */
	KUNIT_EXPECT_EQ(test, nr, 27U);
	KUNIT_EXPECT_EQ(test, nr_read_only, 7U);
}

static void damon_modules_test_boot_refused_stays_off(struct kunit *test)
{
	struct damon_modules_runner *r = kunit_kzalloc(test, sizeof(*r),
						       GFP_KERNEL);
	struct damon_ctx *ctx = damon_new_ctx();

	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	mutex_init(&r->lock);
	r->name = "test";
	r->build_ctx = damon_modules_test_build_refused;
	r->boot_enable = true;
	r->boot_refused = "test.sample_interval";
	damon_modules_test_nr_builds = 0;

	KUNIT_EXPECT_EQ(test, damon_modules_runner_init(r, ctx), -EINVAL);
	KUNIT_EXPECT_EQ(test, damon_modules_test_nr_builds, 0);
	KUNIT_EXPECT_TRUE(test, r->ready);
	KUNIT_EXPECT_FALSE(test, damon_modules_is_enabled(r));
	damon_destroy_ctx(ctx);
}

static void damon_modules_test_refused_enable_and_commit(struct kunit *test)
{
	struct damon_modules_runner *r = kunit_kzalloc(test, sizeof(*r),
						       GFP_KERNEL);
	struct damon_ctx *ctx = damon_new_ctx();

	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	mutex_init(&r->lock);
	r->name = "test";
	r->build_ctx = damon_modules_test_build_refused;
	damon_modules_test_nr_builds = 0;

	/* Not asked at boot: the initcall builds nothing. */
	KUNIT_EXPECT_EQ(test, damon_modules_runner_init(r, ctx), 0);
	KUNIT_EXPECT_EQ(test, damon_modules_test_nr_builds, 0);

	KUNIT_EXPECT_EQ(test, damon_modules_set_enabled(r, true), -EINVAL);
	KUNIT_EXPECT_EQ(test, damon_modules_test_nr_builds, 1);
	KUNIT_EXPECT_FALSE(test, damon_modules_is_enabled(r));
	/* Off: a commit only checks, and reports what it found. */
	KUNIT_EXPECT_EQ(test, damon_modules_commit(r), -EINVAL);
	KUNIT_EXPECT_EQ(test, damon_modules_test_nr_builds, 2);
	/* Already off: nothing to do, nothing built. */
	KUNIT_EXPECT_EQ(test, damon_modules_set_enabled(r, false), 0);
	KUNIT_EXPECT_EQ(test, damon_modules_test_nr_builds, 2);
	damon_destroy_ctx(ctx);
}

static void damon_modules_test_start_forgets_regions(struct kunit *test)
{
	struct damon_modules_runner *r = kunit_kzalloc(test, sizeof(*r),
						       GFP_KERNEL);
	struct damon_ctx *ctx = damon_new_ctx();
	struct damon_target *t = damon_new_target();
	struct damon_region *region = damon_new_region(0, PAGE_SIZE);

	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_ASSERT_NOT_NULL(test, region);
	/* What a previous run left: an old, unaccessed region. */
	region->age = 1000;
	damon_add_region(region, t);
	damon_add_target(ctx, t);
	mutex_init(&r->lock);
	r->name = "test";
	r->build_ctx = damon_modules_test_build_refused;
	KUNIT_EXPECT_EQ(test, damon_modules_runner_init(r, ctx), 0);
	KUNIT_EXPECT_FALSE(test, list_empty(&ctx->targets));

	/* Starting drops it before building, even if building fails. */
	KUNIT_EXPECT_EQ(test, damon_modules_set_enabled(r, true), -EINVAL);
	KUNIT_EXPECT_TRUE(test, list_empty(&ctx->targets));
	damon_destroy_ctx(ctx);
}

static void damon_modules_test_no_ctx(struct kunit *test)
{
	struct damon_modules_runner *r = kunit_kzalloc(test, sizeof(*r),
						       GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, r);
	mutex_init(&r->lock);
	r->name = "test";
	r->build_ctx = damon_modules_test_build_refused;
	r->boot_enable = true;
	KUNIT_EXPECT_EQ(test, damon_modules_runner_init(r, NULL), -ENOMEM);
	KUNIT_EXPECT_EQ(test, damon_modules_set_enabled(r, true), -ENODEV);
	KUNIT_EXPECT_EQ(test, damon_modules_commit(r), -ENODEV);
	KUNIT_EXPECT_FALSE(test, damon_modules_is_enabled(r));
}

/* === The DAMON_RECLAIM scheme === */

static struct damon_reclaim_inputs damon_reclaim_test_defaults(void)
{
	struct damon_reclaim_inputs in = {
		.common = damon_modules_test_defaults(),
		.min_age_us = 120000000,
		.quota_ms = 10,
		.quota_sz_bytes = 128 * 1024 * 1024,
		.quota_reset_interval_ms = 1000,
	};

	return in;
}

static void damon_reclaim_test_check_inputs(struct kunit *test)
{
	struct damon_reclaim_inputs in = damon_reclaim_test_defaults();

	KUNIT_EXPECT_EQ(test, damon_reclaim_check_inputs(&in), 0U);
	in.quota_reset_interval_ms = 0;
	KUNIT_EXPECT_EQ(test, damon_reclaim_check_inputs(&in),
			DAMON_RECLAIM_BAD_QUOTA_RESET);
	in.common.wmarks.high = 0;
	KUNIT_EXPECT_EQ(test, damon_reclaim_check_inputs(&in),
			DAMON_RECLAIM_BAD_QUOTA_RESET |
			DAMON_MODULES_BAD_WMARKS);
}

static void damon_reclaim_test_default_scheme(struct kunit *test)
{
	struct damon_reclaim_inputs in = damon_reclaim_test_defaults();
	struct damos *s = damon_reclaim_new_scheme(&in);

	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_EXPECT_EQ(test, s->action, DAMOS_PAGEOUT);
	KUNIT_EXPECT_EQ(test, s->pattern.min_sz_region, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, s->pattern.max_sz_region, ULONG_MAX);
	KUNIT_EXPECT_EQ(test, s->pattern.min_nr_accesses, 0U);
	KUNIT_EXPECT_EQ(test, s->pattern.max_nr_accesses, 0U);
	/* 120 s in windows of 100 ms. */
	KUNIT_EXPECT_EQ(test, s->pattern.min_age_region, 1200U);
	KUNIT_EXPECT_EQ(test, s->pattern.max_age_region, UINT_MAX);

	KUNIT_EXPECT_EQ(test, s->quota.ms, 10UL);
	KUNIT_EXPECT_EQ(test, s->quota.sz, 128UL * 1024 * 1024);
	KUNIT_EXPECT_EQ(test, s->quota.reset_interval_ms, 1000UL);
	KUNIT_EXPECT_EQ(test, s->quota.weight_sz, 0U);
	KUNIT_EXPECT_EQ(test, s->quota.weight_nr_accesses, 0U);
	KUNIT_EXPECT_EQ(test, s->quota.weight_age, 1U);
	KUNIT_EXPECT_TRUE(test, list_empty(&s->quota.goals));

	KUNIT_EXPECT_EQ(test, s->wmarks.metric, DAMOS_WMARK_FREE_MEM_RATE);
	KUNIT_EXPECT_EQ(test, s->wmarks.interval_us, 5000000UL);
	KUNIT_EXPECT_EQ(test, s->wmarks.high, 500UL);
	KUNIT_EXPECT_EQ(test, s->wmarks.mid, 400UL);
	KUNIT_EXPECT_EQ(test, s->wmarks.low, 200UL);
	KUNIT_EXPECT_TRUE(test, list_empty(&s->filters));
	KUNIT_EXPECT_EQ(test, damos_validate_scheme(s), 0);
	damon_destroy_scheme(s);

	/* A dry run counts the same regions and acts on none. */
	in.dry_run = true;
	s = damon_reclaim_new_scheme(&in);
	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_EXPECT_EQ(test, s->action, DAMOS_STAT);
	KUNIT_EXPECT_EQ(test, s->pattern.min_age_region, 1200U);
	KUNIT_EXPECT_EQ(test, s->quota.sz, 128UL * 1024 * 1024);
	damon_destroy_scheme(s);
}

static unsigned int damon_reclaim_test_min_age(unsigned long aggr_us,
					       unsigned long min_age_us)
{
	struct damon_reclaim_inputs in = damon_reclaim_test_defaults();
	unsigned int windows = 0;
	struct damos *s;

	in.common.attrs.sample_interval = 1;
	in.common.attrs.aggr_interval = aggr_us;
	in.min_age_us = min_age_us;
	s = damon_reclaim_new_scheme(&in);
	if (s) {
		windows = s->pattern.min_age_region;
		damon_destroy_scheme(s);
	}
	return windows;
}

static void damon_reclaim_test_min_age_windows(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, damon_reclaim_test_min_age(100000, 0), 0U);
	KUNIT_EXPECT_EQ(test, damon_reclaim_test_min_age(100000, 5000000),
			50U);
	KUNIT_EXPECT_EQ(test, damon_reclaim_test_min_age(1, 0), 0U);
	KUNIT_EXPECT_EQ(test, damon_reclaim_test_min_age(1, 1), 1U);
	KUNIT_EXPECT_EQ(test, damon_reclaim_test_min_age(1, UINT_MAX),
			UINT_MAX);
	/* Saturates instead of wrapping. */
	KUNIT_EXPECT_EQ(test, damon_reclaim_test_min_age(1, ULONG_MAX),
			UINT_MAX);
	KUNIT_EXPECT_EQ(test, damon_reclaim_test_min_age(100000, ULONG_MAX),
			(unsigned int)min_t(unsigned long, UINT_MAX,
					    ULONG_MAX / 100000));
	KUNIT_EXPECT_EQ(test, damon_reclaim_test_min_age(ULONG_MAX, ULONG_MAX),
			1U);
}

static void damon_reclaim_test_goals_and_filter(struct kunit *test)
{
	struct damon_reclaim_inputs in = damon_reclaim_test_defaults();
	struct damos_quota_goal *g;
	struct damos_filter *f;
	struct damos *s;
	int nr = 0;

	in.quota_mem_pressure_us = 1000;
	in.quota_autotune_feedback = 5000;
	in.skip_anon = true;
	s = damon_reclaim_new_scheme(&in);
	KUNIT_ASSERT_NOT_NULL(test, s);

	damos_for_each_quota_goal(g, &s->quota) {
		if (nr == 0) {
			KUNIT_EXPECT_EQ(test, g->metric,
					DAMOS_QUOTA_SOME_MEM_PSI_US);
			KUNIT_EXPECT_EQ(test, g->target_value, 1000UL);
		} else {
			KUNIT_EXPECT_EQ(test, g->metric,
					DAMOS_QUOTA_USER_INPUT);
			KUNIT_EXPECT_EQ(test, g->target_value,
					DAMON_RECLAIM_FEEDBACK_TARGET);
			KUNIT_EXPECT_EQ(test, g->current_value, 5000UL);
		}
		nr++;
	}
	KUNIT_EXPECT_EQ(test, nr, 2);

	nr = 0;
	damos_for_each_filter(f, s) {
		KUNIT_EXPECT_EQ(test, f->type, DAMOS_FILTER_TYPE_ANON);
		KUNIT_EXPECT_TRUE(test, f->matching);
		nr++;
	}
	KUNIT_EXPECT_EQ(test, nr, 1);
	damon_destroy_scheme(s);

	/* Only the feedback goal. */
	in.quota_mem_pressure_us = 0;
	in.skip_anon = false;
	s = damon_reclaim_new_scheme(&in);
	KUNIT_ASSERT_NOT_NULL(test, s);
	nr = 0;
	damos_for_each_quota_goal(g, &s->quota) {
		KUNIT_EXPECT_EQ(test, g->metric, DAMOS_QUOTA_USER_INPUT);
		nr++;
	}
	KUNIT_EXPECT_EQ(test, nr, 1);
	KUNIT_EXPECT_TRUE(test, list_empty(&s->filters));
	damon_destroy_scheme(s);
}

static struct kunit_case damon_reclaim_test_cases[] = {
	KUNIT_CASE(damon_modules_test_system_ram),
	KUNIT_CASE(damon_modules_test_parse_ulong),
	KUNIT_CASE(damon_modules_test_ulong_param_ops),
	KUNIT_CASE(damon_reclaim_test_every_param_has_set),
	KUNIT_CASE(damon_modules_test_bool_param_ops),
	KUNIT_CASE(damon_modules_test_check_intervals),
	KUNIT_CASE(damon_modules_test_check_nr_regions),
	KUNIT_CASE(damon_modules_test_check_wmarks),
	KUNIT_CASE(damon_modules_test_check_region),
	KUNIT_CASE(damon_modules_test_check_reports_every_rule),
	KUNIT_CASE(damon_modules_test_boot_enable_remembered),
	KUNIT_CASE(damon_modules_test_boot_refused_stays_off),
	KUNIT_CASE(damon_modules_test_refused_enable_and_commit),
	KUNIT_CASE(damon_modules_test_start_forgets_regions),
	KUNIT_CASE(damon_modules_test_no_ctx),
	KUNIT_CASE(damon_reclaim_test_check_inputs),
	KUNIT_CASE(damon_reclaim_test_default_scheme),
	KUNIT_CASE(damon_reclaim_test_min_age_windows),
	KUNIT_CASE(damon_reclaim_test_goals_and_filter),
	{},
};

static struct kunit_suite damon_reclaim_test_suite = {
	.name = "damon-reclaim",
	.test_cases = damon_reclaim_test_cases,
};

kunit_test_suite(damon_reclaim_test_suite);

MODULE_LICENSE("GPL");
