/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of DAMON.  damon:damon_aggregated reports every region at the
 * end of each aggregation window, in the format perf and trace-cmd users of
 * DAMON already parse.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM damon

#if !defined(_TRACE_DAMON_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_DAMON_H

#include <linux/damon.h>
#include <linux/tracepoint.h>
#include <linux/types.h>

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
