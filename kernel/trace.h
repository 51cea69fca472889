/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Tracepoints of the metaroce module (events/metaroce/ in tracefs):
 * what an operator needs to follow one QP through a stall or a
 * retransmission storm (admin-guide.rst, "Tracing a QP"). Every event
 * carries the rdma device index ("rdma dev" lists it) and the QPN.
 *
 *   metaroce_qp_state     a QP changed state (verbs or an error)
 *   metaroce_pkt_tx       a packet was built for the wire
 *   metaroce_pkt_rx       a packet passed the codec (MR-MAL-2) for a QP
 *   metaroce_retx         a request went out again, and why
 *   metaroce_req_event    RTO, NACK, RNR, spurious RTO undone, re-rolls,
 *                         path deaths, probes and revivals, fail-over,
 *                         budget spent: the requester's events
 *   metaroce_cwnd         the congestion window changed
 *   metaroce_path         a path changed state or entropy (re-roll)
 *
 * Disabled tracepoints cost a static branch; the snapshots behind
 * metaroce_cwnd and metaroce_path are taken only while they are on.
 */
#ifndef MROCE_TRACE_TYPES_H
#define MROCE_TRACE_TYPES_H
#include <rdma/ib_verbs.h>

#include "path.h"
#include "requester.h"
#include "wire.h"

/* Why a request PSN is sent again (derived when it goes out). */
enum mroce_retx_cause {
	MROCE_RETX_LOST,	/* RACK, NACK SEQ_ERR/TRIMMED, RNR, dead path */
	MROCE_RETX_RTO,		/* declared lost by an RTO expiry */
	MROCE_RETX_READ,	/* READ re-request of missing pieces (MR-REL-24) */
	MROCE_RETX_ATOMIC,	/* atomic re-sent for its response (MR-REL-27) */
};
#endif /* MROCE_TRACE_TYPES_H */

#undef TRACE_SYSTEM
#define TRACE_SYSTEM metaroce

#if !defined(MROCE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define MROCE_TRACE_H

#include <linux/tracepoint.h>

#define mroce_show_qps(s)						\
	__print_symbolic(s, { IB_QPS_RESET, "RESET" },			\
			 { IB_QPS_INIT, "INIT" }, { IB_QPS_RTR, "RTR" },\
			 { IB_QPS_RTS, "RTS" }, { IB_QPS_SQD, "SQD" },	\
			 { IB_QPS_SQE, "SQE" }, { IB_QPS_ERR, "ERR" })

#define mroce_show_op(o)						\
	__print_symbolic(o, { MR_OP_SEND, "SEND" },			\
			 { MR_OP_SEND_IMM, "SEND_IMM" },		\
			 { MR_OP_SEND_INV, "SEND_INV" },		\
			 { MR_OP_WRITE, "WRITE" },			\
			 { MR_OP_WRITE_IMM, "WRITE_IMM" },		\
			 { MR_OP_READ_REQ, "READ_REQ" },		\
			 { MR_OP_ATOMIC_CS, "ATOMIC_CS" },		\
			 { MR_OP_ATOMIC_FA, "ATOMIC_FA" },		\
			 { MR_OP_UD_SEND, "UD_SEND" },			\
			 { MR_OP_UD_SEND_IMM, "UD_SEND_IMM" },		\
			 { MR_OP_ACK, "ACK" }, { MR_OP_NACK, "NACK" },	\
			 { MR_OP_READ_RESP, "READ_RESP" },		\
			 { MR_OP_ATOMIC_RESP, "ATOMIC_RESP" },		\
			 { MR_OP_PROBE, "PROBE" },			\
			 { MR_OP_PROBE_REPLY, "PROBE_REPLY" },		\
			 { MR_OP_HELLO, "HELLO" })

TRACE_EVENT(metaroce_qp_state,
	TP_PROTO(u32 dev, u32 qpn, int from, int to),
	TP_ARGS(dev, qpn, from, to),
	TP_STRUCT__entry(
		__field(u32, dev)
		__field(u32, qpn)
		__field(int, from)
		__field(int, to)
	),
	TP_fast_assign(
		__entry->dev = dev;
		__entry->qpn = qpn;
		__entry->from = from;
		__entry->to = to;
	),
	TP_printk("dev=%u qpn=%u %s -> %s", __entry->dev, __entry->qpn,
		  mroce_show_qps(__entry->from), mroce_show_qps(__entry->to))
);

DECLARE_EVENT_CLASS(metaroce_pkt,
	TP_PROTO(u32 dev, const struct mr_pkt *p),
	TP_ARGS(dev, p),
	TP_STRUCT__entry(
		__field(u32, dev)
		__field(u32, sqpn)
		__field(u32, dqpn)
		__field(u32, psn)
		__field(u32, plen)
		__field(u16, flags)
		__field(u8, opcode)
		__field(u8, path)
	),
	TP_fast_assign(
		__entry->dev = dev;
		__entry->sqpn = p->sqpn;
		__entry->dqpn = p->dqpn;
		__entry->psn = p->psn;
		__entry->plen = p->payload_len;
		__entry->flags = p->flags;
		__entry->opcode = p->opcode;
		__entry->path = p->path;
	),
	TP_printk("dev=%u sqpn=%u dqpn=%u %s psn=%u path=%u flags=%#x len=%u",
		  __entry->dev, __entry->sqpn, __entry->dqpn,
		  mroce_show_op(__entry->opcode), __entry->psn, __entry->path,
		  __entry->flags, __entry->plen)
);

DEFINE_EVENT(metaroce_pkt, metaroce_pkt_tx,
	TP_PROTO(u32 dev, const struct mr_pkt *p),
	TP_ARGS(dev, p));

DEFINE_EVENT(metaroce_pkt, metaroce_pkt_rx,
	TP_PROTO(u32 dev, const struct mr_pkt *p),
	TP_ARGS(dev, p));

TRACE_EVENT(metaroce_retx,
	TP_PROTO(u32 dev, u32 qpn, u32 psn, u8 path, int cause),
	TP_ARGS(dev, qpn, psn, path, cause),
	TP_STRUCT__entry(
		__field(u32, dev)
		__field(u32, qpn)
		__field(u32, psn)
		__field(int, cause)
		__field(u8, path)
	),
	TP_fast_assign(
		__entry->dev = dev;
		__entry->qpn = qpn;
		__entry->psn = psn;
		__entry->cause = cause;
		__entry->path = path;
	),
	TP_printk("dev=%u qpn=%u psn=%u path=%u cause=%s", __entry->dev,
		  __entry->qpn, __entry->psn, __entry->path,
		  __print_symbolic(__entry->cause,
				   { MROCE_RETX_LOST, "lost" },
				   { MROCE_RETX_RTO, "rto" },
				   { MROCE_RETX_READ, "read" },
				   { MROCE_RETX_ATOMIC, "atomic" }))
);

TRACE_EVENT(metaroce_req_event,
	TP_PROTO(u32 dev, u32 qpn, int ev, u64 n, u32 una, u32 nxt),
	TP_ARGS(dev, qpn, ev, n, una, nxt),
	TP_STRUCT__entry(
		__field(u64, n)
		__field(u32, dev)
		__field(u32, qpn)
		__field(int, ev)
		__field(u32, una)
		__field(u32, nxt)
	),
	TP_fast_assign(
		__entry->n = n;
		__entry->dev = dev;
		__entry->qpn = qpn;
		__entry->ev = ev;
		__entry->una = una;
		__entry->nxt = nxt;
	),
	TP_printk("dev=%u qpn=%u %s n=%llu una=%u nxt=%u", __entry->dev,
		  __entry->qpn,
		  __print_symbolic(__entry->ev,
				   { MR_REQ_EV_RTO, "rto" },
				   { MR_REQ_EV_REROLLS, "rerolls" },
				   { MR_REQ_EV_FAILOVER, "failover" },
				   { MR_REQ_EV_RETRY_EXC, "retry_exc" },
				   { MR_REQ_EV_RD_STALLED, "rd_stalled" },
				   { MR_REQ_EV_NACK, "nack" },
				   { MR_REQ_EV_RNR, "rnr" },
				   { MR_REQ_EV_SPURIOUS_RTO, "spurious_rto" },
				   { MR_REQ_EV_SPURIOUS, "spurious" },
				   { MR_REQ_EV_ACK_AGED, "ack_aged" },
				   { MR_REQ_EV_ACK_BAD, "ack_bad" },
				   { MR_REQ_EV_TRIMMED, "trimmed" },
				   { MR_REQ_EV_RESP_DUP, "resp_dup" },
				   { MR_REQ_EV_PATH_DEAD, "path_dead" },
				   { MR_REQ_EV_PROBE, "probe" },
				   { MR_REQ_EV_PROBE_REPLY, "probe_reply" },
				   { MR_REQ_EV_PATH_REVIVED, "path_revived" },
				   { MR_REQ_EV_EXPLORES, "explores" }),
		  __entry->n, __entry->una, __entry->nxt)
);

TRACE_EVENT(metaroce_cwnd,
	TP_PROTO(u32 dev, u32 qpn, u32 cwnd, u32 ssthresh, u32 inflight),
	TP_ARGS(dev, qpn, cwnd, ssthresh, inflight),
	TP_STRUCT__entry(
		__field(u32, dev)
		__field(u32, qpn)
		__field(u32, cwnd)
		__field(u32, ssthresh)
		__field(u32, inflight)
	),
	TP_fast_assign(
		__entry->dev = dev;
		__entry->qpn = qpn;
		__entry->cwnd = cwnd;
		__entry->ssthresh = ssthresh;
		__entry->inflight = inflight;
	),
	/* cwnd and ssthresh in 1/65536 packets (MR_CC_SHIFT) */
	TP_printk("dev=%u qpn=%u cwnd=%u.%03u ssthresh=%u inflight=%u",
		  __entry->dev, __entry->qpn, __entry->cwnd >> 16,
		  ((__entry->cwnd & 0xffff) * 1000) >> 16,
		  __entry->ssthresh >> 16, __entry->inflight)
);

/*
 * A path's state or entropy changed.  On a death, what MR-MP-8 saw:
 * pending for wait_us with sent packets, against dead_rtos times
 * rto_base_us (0 otherwise).
 */
TRACE_EVENT(metaroce_path,
	TP_PROTO(u32 dev, u32 qpn, u8 path, u8 state, u16 entropy,
		 u32 wait_us, u32 sent, u32 rto_base_us),
	TP_ARGS(dev, qpn, path, state, entropy, wait_us, sent, rto_base_us),
	TP_STRUCT__entry(
		__field(u32, dev)
		__field(u32, qpn)
		__field(u32, wait_us)
		__field(u32, sent)
		__field(u32, rto_base_us)
		__field(u16, entropy)
		__field(u8, path)
		__field(u8, state)
	),
	TP_fast_assign(
		__entry->dev = dev;
		__entry->qpn = qpn;
		__entry->wait_us = wait_us;
		__entry->sent = sent;
		__entry->rto_base_us = rto_base_us;
		__entry->entropy = entropy;
		__entry->path = path;
		__entry->state = state;
	),
	TP_printk("dev=%u qpn=%u path=%u %s entropy=%#x wait_us=%u sent=%u rto_base_us=%u",
		  __entry->dev, __entry->qpn, __entry->path,
		  __print_symbolic(__entry->state,
				   { MR_PATH_ACTIVE, "ACTIVE" },
				   { MR_PATH_SUSPECT, "SUSPECT" },
				   { MR_PATH_DEAD, "DEAD" }),
		  __entry->entropy, __entry->wait_us, __entry->sent,
		  __entry->rto_base_us)
);

#endif /* MROCE_TRACE_H */

/* Out of tree: the header is found next to the module's sources. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
