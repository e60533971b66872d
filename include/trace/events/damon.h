/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of DAMON.  damon:damon_aggregated reports every region at the
 * end of each aggregation window, damon:damos_before_apply every region a
 * scheme acts on, in the formats perf and trace-cmd users of DAMON already
 * parse.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM damon

#if !defined(_TRACE_DAMON_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_DAMON_H

#include <linux/damon.h>
#include <linux/tracepoint.h>
#include <linux/types.h>

/*
 * damos_before_apply - A scheme is about to act on a region.
 * @context_idx:	Index of the context; 0, as a kdamond runs one.
 * @scheme_idx:		Index of the scheme in its context.
 * @target_idx:		Index of the region's target in its context.
 * @r:			The region, as the action gets it (split to the quota).
 * @nr_regions:		Number of regions of the target.
 */
TRACE_EVENT(damos_before_apply,
	    TP_PROTO(unsigned int context_idx, unsigned int scheme_idx,
		     unsigned int target_idx, struct damon_region *r,
		     unsigned int nr_regions),
	    TP_ARGS(context_idx, scheme_idx, target_idx, r, nr_regions),
	    TP_STRUCT__entry(__field(unsigned int, context_idx)
			     __field(unsigned int, scheme_idx)
			     __field(unsigned long, target_idx)
			     __field(unsigned long, start)
			     __field(unsigned long, end)
			     __field(unsigned int, nr_accesses)
			     __field(unsigned int, age)
			     __field(unsigned int, nr_regions)),
	    TP_fast_assign(__entry->context_idx = context_idx;
			   __entry->scheme_idx = scheme_idx;
			   __entry->target_idx = target_idx;
			   __entry->start = r->ar.start;
			   __entry->end = r->ar.end;
			   __entry->nr_accesses = r->nr_accesses;
			   __entry->age = r->age;
			   __entry->nr_regions = nr_regions;),
	    TP_printk("ctx_idx=%u scheme_idx=%u target_idx=%lu nr_regions=%u %lu-%lu: %u %u",
		      __entry->context_idx, __entry->scheme_idx,
		      __entry->target_idx, __entry->nr_regions,
		      __entry->start, __entry->end,
		      __entry->nr_accesses, __entry->age)
);

/*
 * damon_aggregated - One region at the end of an aggregation window.
 * @target_id:	Index of the region's target in its context.
 * @r:		The region; its access count is the window's.
 * @nr_regions:	Number of regions of the target.
 */
TRACE_EVENT(damon_aggregated,
	    TP_PROTO(unsigned int target_id, struct damon_region *r,
		     unsigned int nr_regions),
	    TP_ARGS(target_id, r, nr_regions),
	    TP_STRUCT__entry(__field(unsigned long, target_id)
			     __field(unsigned int, nr_regions)
			     __field(unsigned long, start)
			     __field(unsigned long, end)
			     __field(unsigned int, nr_accesses)
			     __field(unsigned int, age)),
	    TP_fast_assign(__entry->target_id = target_id;
			   __entry->nr_regions = nr_regions;
			   __entry->start = r->ar.start;
			   __entry->end = r->ar.end;
			   __entry->nr_accesses = r->nr_accesses;
			   __entry->age = r->age;),
	    TP_printk("target_id=%lu nr_regions=%u %lu-%lu: %u %u",
		      __entry->target_id, __entry->nr_regions,
		      __entry->start, __entry->end,
		      __entry->nr_accesses, __entry->age)
);

#endif /* _TRACE_DAMON_H */

/* This part must be outside protection */
#include <trace/define_trace.h>
