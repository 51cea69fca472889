/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * MetaRoCE responder side of READ and ATOMIC: what the responder
 * remembers of the requests it executed and the READ responses it still
 * has to send.
 *
 * Records (MR-REL-8, MR-REL-9, MR-REL-25, MR-VERBS-14): the last
 * MR_RDRESP_RECS executed READ and ATOMIC messages, by msn, in execution
 * order. A READ's records hold the union of the ranges served for it at
 * its va and R_Key (one record per run of touching ranges; a READ split
 * and asked for in order has one); an ATOMIC's record is its PSN and
 * original value. A duplicate is answered only from a record: a READ
 * within one range record, same va and R_Key; an ATOMIC with its own
 * PSN. Anything else is dropped
 * and counted: a responder never re-reads what the original request did
 * not cover, and never executes an atomic twice.
 *
 * Jobs (MR-CC-19): every READ range executed (or replayed) becomes a job
 * in a bounded queue; the caller takes one READ_RESP at a time with
 * mr_rdresp_peek() and mr_rdresp_commit(), as many per call as its
 * budget and pacing allow, so that no single request makes the responder
 * build more than a bounded number of packets at once (MR-SEC-9).
 *
 * No I/O: the caller checks R_Keys, copies memory and builds packets.
 */
#ifndef MR_PROTO_RDRESP_H
#define MR_PROTO_RDRESP_H

#include "compat.h"
#include "psn.h"
#include "wire.h"
#include "rxmsg.h"

/* The largest range one READ_REQ may ask for (MR-REL-31). */
#define MR_READ_RANGE_MAX	65536U
/* Executed READ/ATOMIC messages remembered: max_dest_rd_atomic's maximum. */
#define MR_RDRESP_RECS		128
/* READ ranges queued for their responses. */
#define MR_RDRESP_JOBS		128

struct mr_rdresp_rec {
	u32	msn;
	u32	psn;		/* ATOMIC: its request PSN */
	u64	va;
	u32	rkey;
	u32	lo, hi;		/* READ: a run of touching ranges served */
	u64	orig;		/* ATOMIC: the original value returned */
	u8	opcode;		/* 0: unused */
};

struct mr_rdresp_job {
	u32	msn;
	u32	psn;		/* the READ_REQ answered (MR-HDR-8) */
	u64	va;		/* the READ message's va */
	u32	rkey;
	u32	off;		/* next byte to send */
	u32	end;		/* one past the range's last byte */
	u8	retx;		/* a replay: RETX on every packet */
	u8	first;		/* the READ's first execution (max_dest_rd_atomic) */
	u8	path;		/* echoed path (MR-HDR-6) */
};

/* One READ_RESP to build: bytes [off, off + len) read at va + off. */
struct mr_rdresp_chunk {
	u32	msn;
	u32	psn;
	u64	va;
	u32	rkey;
	u32	off;
	u32	len;
	u32	end;		/* DXH.msg_len: end of the range (MR-HDR-10) */
	u16	flags;		/* FIRST, LAST, RETX */
	u8	path;
};

struct mr_rdresp_stats {
	u64	reads;		/* READ ranges executed */
	u64	atomics;	/* atomics executed */
	u64	replays;	/* duplicates answered from a record */
	u64	replay_drops;	/* duplicates no record covers */
	u64	atomic_miss;	/* duplicate atomics not in the cache */
	u64	job_drops;	/* ranges refused: the job queue was full */
	u64	covered;	/* ranges a queued job still sends */
	u64	packets;	/* READ_RESP packets handed out */
};

struct mr_rdresp {
	struct mr_rdresp_rec	rec[MR_RDRESP_RECS];
	u32			rec_next;
	struct mr_rdresp_job	job[MR_RDRESP_JOBS];
	u32			job_head, job_tail;
	u32			first_jobs;	/* jobs with first set */
	u64			next_ns;	/* pacing: next READ_RESP due */
	struct mr_rdresp_stats	st;
};

void mr_rdresp_init(struct mr_rdresp *r);

/*
 * Arrival check of a READ_REQ or atomic whose PSN the receive window
 * classified new, before mr_rxmsg_add() (MR-REL-25, MR-REL-31,
 * MR-VERBS-15). @m is the QP's message tracker, @max_dest its
 * max_dest_rd_atomic. Returns 0; MR_NACK_INVALID_REQ for a READ range
 * longer than MR_READ_RANGE_MAX, a READ_REQ for an executed msn that no
 * READ record has, an atomic for an executed msn (atomics are re-sent
 * under their own PSN only, MR-REL-27), or a new READ or ATOMIC message
 * beyond @max_dest of them received and not finished; or
 * MR_ERR_MSG_MISMATCH for a READ_REQ of an executed READ with another va
 * or R_Key (MR-PLACE-14: dropped, counted).
 */
int mr_rdresp_check_new(const struct mr_rdresp *r, const struct mr_rxmsg *m,
			const struct mr_pkt *p, u32 max_dest);

/*
 * READ and ATOMIC messages received and not finished: @rxmsg_pending of
 * them (mr_rxmsg_pending_rd_atomic()) wait for execution, the others
 * still have responses queued here.
 */
static inline u32 mr_rdresp_pending(const struct mr_rdresp *r,
				    u32 rxmsg_pending)
{
	return rxmsg_pending + r->first_jobs;
}

/*
 * Execute READ range @m (popped by mr_rxmsg_pop_completed(), R_Key and
 * range already checked by the caller): record it and queue its
 * responses, echoing @path. 0, or MR_ERR_NOSPACE when the queue is full
 * (counted; the requester asks again for what it misses, MR-LOSS-14).
 */
int mr_rdresp_read(struct mr_rdresp *r, const struct mr_rxmsg_info *m,
		   u8 path);

/* Record executed atomic @m and the original value it returned. */
void mr_rdresp_atomic_done(struct mr_rdresp *r,
			   const struct mr_rxmsg_info *m, u64 orig);

enum mr_rdresp_replay {
	MR_REPLAY_DROP = 0,	/* no record covers it: drop, counted */
	MR_REPLAY_READ,		/* READ responses queued again, RETX */
	MR_REPLAY_ATOMIC,	/* answer with *orig, RETX */
};

/*
 * A duplicate READ_REQ or atomic (PSN before cum_psn) whose msn was
 * executed (before @next_msn); the caller has rate-limited it. Returns
 * what to do (MR-REL-8, MR-REL-9).
 */
enum mr_rdresp_replay mr_rdresp_replay(struct mr_rdresp *r,
				       const struct mr_pkt *p, u32 next_msn,
				       u64 *orig);

/* READ response jobs queued (at most MR_RDRESP_JOBS). */
static inline u32 mr_rdresp_jobs_queued(const struct mr_rdresp *r)
{
	return r->job_tail - r->job_head;
}

/* Jobs are queued. */
static inline bool mr_rdresp_busy(const struct mr_rdresp *r)
{
	return r->job_head != r->job_tail;
}

/*
 * The next READ_RESP, at most @mtu payload bytes, chunks ending on
 * multiples of @mtu (MR-HDR-10). False if no job is queued. Nothing
 * changes until mr_rdresp_commit() of the same chunk.
 */
bool mr_rdresp_peek(const struct mr_rdresp *r, u32 mtu,
		    struct mr_rdresp_chunk *c);
/*
 * The READ_RESP that carries chunk @c: opcode, flags, path, PSN and DXH
 * (MR-HDR-10). The caller adds the QPNs, its timestamp and the payload,
 * @c->len bytes read at @c->va + @c->off.
 */
void mr_rdresp_read_pkt(const struct mr_rdresp_chunk *c, struct mr_pkt *r);
/*
 * The ATOMIC_RESP of atomic message @msn, request PSN @psn, on @path,
 * carrying the word's original value @orig; @retx for one answered from
 * the record (MR-REL-9). The caller adds the QPNs and its timestamp.
 */
void mr_rdresp_atomic_pkt(u32 msn, u32 psn, u8 path, u64 orig, bool retx,
			  struct mr_pkt *r);
/*
 * What atomic @opcode leaves in a word that held @orig: ATOMIC_FA adds
 * @swap_add, ATOMIC_CS writes @swap_add if the word equals @compare
 * (MR-HDR-14).
 */
u64 mr_atomic_result(u8 opcode, u64 orig, u64 swap_add, u64 compare);

/* The chunk from mr_rdresp_peek() was sent. */
void mr_rdresp_commit(struct mr_rdresp *r, const struct mr_rdresp_chunk *c);
/* Abandon the job of the next chunk (its memory went away). */
void mr_rdresp_abort(struct mr_rdresp *r);
/* Forget every job (QP reset or error); records stay until init. */
void mr_rdresp_clear_jobs(struct mr_rdresp *r);

/* ops->build results besides 0 (built and queued). */
#define MR_RDRESP_NOMEM		(-1)	/* try again in MR_RDRESP_NOMEM_NS */
#define MR_RDRESP_GONE		(-2)	/* the range is unreadable: job dropped */

/* How soon a pass that found no memory is tried again. */
#define MR_RDRESP_NOMEM_NS	(1000ULL * 1000)

/*
 * One pass over the queued READ responses, as every responder sends
 * them: at most @budget READ_RESPs (MR-SEC-9), pieces of at most @mtu
 * bytes, paced at @gap_ns apart with bursts of up to @slack_ns ahead
 * (MR-CC-19; @gap_ns 0: no pacing). @build builds and sends chunk @ch:
 * 0, MR_RDRESP_NOMEM (the chunk waits) or MR_RDRESP_GONE (its region no
 * longer grants the read: the job is abandoned and the requester asks
 * again, MR-LOSS-14). Returns MR_TIME_NEVER when no job is left, @now_ns
 * when the budget ran out with more ready, or the time the pass is due
 * again (pacing, no memory).
 */
u64 mr_rdresp_pump(struct mr_rdresp *r, u32 mtu, int budget, u64 now_ns,
		   u64 gap_ns, u64 slack_ns,
		   int (*build)(void *ctx, const struct mr_rdresp_chunk *ch),
		   void *ctx);

#endif /* MR_PROTO_RDRESP_H */
