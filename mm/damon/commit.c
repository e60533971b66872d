// SPDX-License-Identifier: GPL-2.0
/*
 * Committing new parameters into a context, running or not: everything that
 * needs memory is built first, then swapped in by kdamond, so that a failed
 * commit leaves the context as it was.
 */

#include <linux/lockdep.h>
#include <linux/minmax.h>
#include <linux/slab.h>

#include "internal.h"

/*
 * The new state of one destination target, built before anything of the
 * destination changes.  @shadow holds the new regions of an existing target
 * (swapped in on success) or is itself a new target (added on success).
 */
struct damon_commit_target {
	struct damon_target *dst;
	struct damon_target *shadow;
};

/**
 * damon_target_ranges() - The address ranges a target covers.
 * @src:	The target.
 * @rangesp:	Where a kmalloc()ed array of the ranges is stored (NULL when
 *		@src has no region); the caller frees it.
 * @nrp:	Where their number is stored.
 *
 * Adjacent regions are joined, so that a commit keeps the destination's own
 * finer regions inside them, and a client sees the ranges it asked for.
 *
 * Context: May sleep.  The caller owns @src.
 * Return: 0 on success, -ENOMEM if out of memory.
 */
int damon_target_ranges(const struct damon_target *src,
			struct damon_addr_range **rangesp, unsigned int *nrp)
{
	struct damon_addr_range *ranges;
	const struct damon_region *r;
	unsigned int nr = 0;

	*rangesp = NULL;
	*nrp = 0;
	if (!src->nr_regions)
		return 0;
	ranges = kmalloc_array(src->nr_regions, sizeof(*ranges), GFP_KERNEL);
	if (!ranges)
		return -ENOMEM;
	damon_for_each_region(r, src) {
		if (nr && ranges[nr - 1].end == r->ar.start) {
			ranges[nr - 1].end = r->ar.end;
			continue;
		}
		ranges[nr++] = r->ar;
	}
	*rangesp = ranges;
	*nrp = nr;
	return 0;
}

/* A copy of the regions of @t, with their access history. */
static struct damon_target *damon_copy_target(const struct damon_target *t)
{
	const struct damon_region *r;
	struct damon_region *copy;
	struct damon_target *new;

	new = damon_new_target();
	if (!new)
		return NULL;
	damon_for_each_region(r, t) {
		copy = damon_new_region(r->ar.start, r->ar.end);
		if (!copy) {
			damon_destroy_target(new);
			return NULL;
		}
		copy->nr_accesses = r->nr_accesses;
		copy->last_nr_accesses = r->last_nr_accesses;
		copy->age = r->age;
		damon_add_region(copy, new);
	}
	return new;
}

static int damon_prepare_target(struct damon_commit_target *ct,
				const struct damon_target *src,
				unsigned long min_region_sz)
{
	struct damon_addr_range *ranges;
	unsigned int nr_ranges;
	int err;

	err = damon_target_ranges(src, &ranges, &nr_ranges);
	if (err)
		return err;
	if (ct->dst)
		ct->shadow = damon_copy_target(ct->dst);
	else
		ct->shadow = damon_new_target();
	if (!ct->shadow) {
		err = -ENOMEM;
		goto out;
	}
	err = damon_set_regions(ct->shadow, ranges, nr_ranges, min_region_sz);
out:
	kfree(ranges);
	return err;
}

static void damon_swap_regions(struct damon_target *a, struct damon_target *b)
{
	LIST_HEAD(tmp);

	list_splice_init(&a->regions, &tmp);
	list_splice_init(&b->regions, &a->regions);
	list_splice(&tmp, &b->regions);
	swap(a->nr_regions, b->nr_regions);
}

/* Schemes must not keep pointing at a target that goes away. */
static void damon_forget_target(struct damon_ctx *ctx, struct damon_target *t)
{
	struct damos *s;

	damon_for_each_scheme(s, ctx)
		if (s->quota.charge_target_from == t)
			s->quota.charge_target_from = NULL;
}

static int damon_commit_targets_and_schemes(struct damon_ctx *dst,
					    const struct damon_ctx *src)
{
	unsigned int nr_dst = 0, nr_src = 0, nr, i;
	struct damon_commit_target *cts;
	const struct damon_target *st;
	struct damon_target *t;
	int err = 0;

	damon_for_each_target(t, dst)
		nr_dst++;
	damon_for_each_target(st, src)
		nr_src++;
	nr = max(nr_dst, nr_src);
	cts = kcalloc(max(nr, 1U), sizeof(*cts), GFP_KERNEL);
	if (!cts)
		return -ENOMEM;

	/* Build everything that needs memory; dst does not change. */
	i = 0;
	damon_for_each_target(t, dst)
		cts[i++].dst = t;
	i = 0;
	damon_for_each_target(st, src) {
		err = damon_prepare_target(&cts[i++], st, src->min_region_sz);
		if (err)
			goto free;
	}
	err = damos_commit_schemes(dst, src);
	if (err)
		goto free;

	/* Nothing can fail from here on. */
	for (i = 0; i < nr_src; i++) {
		if (cts[i].dst) {
			damon_swap_regions(cts[i].dst, cts[i].shadow);
		} else {
			damon_add_target(dst, cts[i].shadow);
			cts[i].shadow = NULL;
		}
	}
	for (i = nr_src; i < nr_dst; i++) {
		damon_forget_target(dst, cts[i].dst);
		damon_destroy_target(cts[i].dst);
	}
free:
	for (i = 0; i < nr; i++)
		if (cts[i].shadow)
			damon_destroy_target(cts[i].shadow);
	kfree(cts);
	return err;
}

static int damon_commit_fn(struct damon_ctx *dst, void *data)
{
	const struct damon_ctx *src = data;
	bool running = current == dst->kdamond;
	/* A backend is told by its mandatory callback, registered or not. */
	bool ops_changed = dst->ops.prepare_access_checks !=
			   src->ops.prepare_access_checks;
	int err;

	/* damon_call() runs it in kdamond, or in the caller under the lock. */
	if (!running)
		lockdep_assert_held(&dst->kdamond_lock);
	err = damon_commit_targets_and_schemes(dst, src);
	if (err)
		return err;
	if (running && ops_changed)
		damon_ops_cleanup(dst);
	dst->ops = src->ops;
	if (running && ops_changed && dst->ops.init)
		dst->ops.init(dst);
	dst->min_region_sz = src->min_region_sz;
	/* Validated by damon_commit_ctx(); cannot fail. */
	return damon_set_attrs(dst, &src->attrs);
}

/**
 * damon_commit_ctx() - Makes a context use the parameters of another.
 * @dst:	The context to change; it may be running.
 * @src:	The parameters: attributes, minimum region size, operations,
 *		targets (their regions give the ranges to monitor) and
 *		schemes.  It is not changed and must not be running.
 *
 * Everything is validated first.  Then, through damon_call(), @dst takes
 * the attributes, operations and schemes of @src (schemes matched by
 * position keep their quota charge, watermark state and statistics), and
 * each target of @dst is narrowed or widened to the ranges of the target
 * of @src at the same position, keeping what it learnt about the memory
 * both cover.  Extra targets are added or removed.  The hooks of @dst are
 * kept.
 *
 * Context: May sleep.  Not from kdamond.
 * Return: 0 on success; -EINVAL if a parameter of @src is invalid; -ENOMEM
 * if out of memory.  On failure @dst is left unchanged.
 */
int damon_commit_ctx(struct damon_ctx *dst, struct damon_ctx *src)
{
	struct damos *s;
	int err;

	err = damon_validate_attrs(&src->attrs);
	if (err)
		return err;
	if (!damon_ops_usable(&src->ops) || !is_power_of_2(src->min_region_sz))
		return -EINVAL;
	damon_for_each_scheme(s, src) {
		err = damos_validate_scheme(s);
		if (err)
			return err;
	}
	return damon_call(dst, damon_commit_fn, src);
}
