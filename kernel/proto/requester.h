/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * MetaRoCE requester engine: what one RC QP's send queue sends next, and
 * when, and what the ACKs, NACKs and responses that come back mean,
 * decided once for every caller.
 *
 * It owns the sender (scoreboard, congestion control, paths: sender.h)
 * and walks the caller's send queue: new work from the packetizing point
 * (MSN and SSN assignment, fences, the READ/ATOMIC limits, segmentation),
 * retransmissions the scoreboard declared, READ ranges and re-requests
 * and atomic re-sends (rdreq.h), path health rounds and probes, the RTO,
 * RACK and RNR deadlines, which WR at the head may complete (reqdone.h),
 * and what comes back: feedback into the sender, the WR a fatal NACK
 * fails, READ and atomic responses placed once. The caller keeps the queue, the WQEs' own data and the
 * I/O, reached through struct mr_requester_ops; it embeds a struct
 * mr_swqe in each of its send WQEs.
 *
 * The kernel (kernel/req.c), the model test and the profiling harness run
 * this same code. No locking: the caller serialises every call on one
 * requester.
 */
#ifndef MR_PROTO_REQUESTER_H
#define MR_PROTO_REQUESTER_H

#include "compat.h"
#include "rdreq.h"
#include "reqdone.h"
#include "segment.h"
#include "sender.h"
#include "wire.h"

/* ops->emit: no memory, nothing sent; the caller's timer tries again. */
#define MR_REQ_TX_AGAIN		(-1)

/* How soon a send that found no memory is tried again. */
#define MR_REQ_NOMEM_RETRY_NS	(1000ULL * 1000)

enum mr_swqe_state {
	MR_SWQE_QUEUED,		/* posted, not (entirely) sent */
	MR_SWQE_SENT,		/* every request packet went out */
	MR_SWQE_DONE,		/* finished: status says how */
};

/*
 * The requester's part of one send WQE. The caller fills op, fence and
 * length when the WR is posted (state QUEUED; or DONE with a status if
 * it refused the WR then), the engine the rest.
 */
struct mr_swqe {
	u8 op;			/* wire opcode; 0: a local operation */
	u8 state;		/* enum mr_swqe_state */
	u8 status;		/* the caller's status once DONE; 0: success */
	bool fence;		/* waits for earlier READ/ATOMIC results */
	bool rd_atomic;		/* counted in rd_atomic_out */
	u8 rd_path;		/* READ/ATOMIC: its latest request's path */
	u32 length;		/* payload bytes; READ: bytes to read */
	u32 msn;		/* request message sequence number */
	u32 ssn;		/* receive WQE it consumes at the peer */
	u32 first_psn;		/* its first packet; READ/ATOMIC: latest */
	u32 last_psn;		/* its last packet, once SENT */
	/* READ/ATOMIC: responses, retries, what to ask next (rdreq.h) */
	struct mr_rdreq rdq;
};

/* What ops->event reports (one counter or log line each in the kernel). */
enum mr_req_event {
	MR_REQ_EV_RETX,		/* a packet went out again */
	MR_REQ_EV_RTO,		/* the retransmission timer expired */
	MR_REQ_EV_REROLLS,	/* the path table re-rolled @n entropies */
	MR_REQ_EV_FAILOVER,	/* @n packets of a dead path to resend */
	MR_REQ_EV_RETRY_EXC,	/* the scoreboard's retry budget is spent */
	MR_REQ_EV_RD_STALLED,	/* a READ/ATOMIC's retries are spent */
	MR_REQ_EV_ACK,		/* an ACK or NACK was taken */
	MR_REQ_EV_SACK,		/* ... and it carried a SACK map */
	MR_REQ_EV_NACK,		/* ... a NACK with reason @n */
	MR_REQ_EV_RNR,		/* ... an RNR NACK: the sender pauses */
	MR_REQ_EV_SPURIOUS_RTO,	/* an RTO was found spurious, undone */
	MR_REQ_EV_SPURIOUS,	/* @n packets declared lost were delivered */
	MR_REQ_EV_ACK_AGED,	/* ts_echo no recent stamp (MR-SEC-6) */
	MR_REQ_EV_ACK_BAD,	/* an ACK/NACK naming PSNs never sent */
	MR_REQ_EV_TRIMMED,	/* a trimmed response (MR-REL-16) */
	MR_REQ_EV_RESP_DUP,	/* a response or probe reply of nothing due */
	MR_REQ_EV_PATH_DEAD,	/* @n paths declared DEAD (MR-MP-8) */
	MR_REQ_EV_PROBE,	/* a PROBE went out (MR-MP-9) */
	MR_REQ_EV_PROBE_REPLY,	/* a PROBE_REPLY matched its PROBE (MR-MP-11) */
	MR_REQ_EV_PATH_REVIVED,	/* a DEAD path works again (MR-MP-11) */
	MR_REQ_EV_EXPLORES,	/* @n of the re-rolls were explorations (MR-MP-32) */
};

/* The caller's completion statuses the engine fails WRs with. */
enum mr_req_status {
	MR_REQ_ST_RETRY_EXC,	/* RETRY_EXC_ERR */
	MR_REQ_ST_RNR_RETRY_EXC,	/* RNR_RETRY_EXC_ERR */
	MR_REQ_ST_REM_ACCESS,	/* NACK REMOTE_ACCESS (MR-VERBS-22) */
	MR_REQ_ST_REM_INV_REQ,	/* NACK INVALID_REQ */
	MR_REQ_ST_REM_OP,	/* NACK REMOTE_OP */
	MR_REQ_ST_FLUSH,	/* WR_FLUSH_ERR (MR-VERBS-25) */
	MR_REQ_ST_N,
};

/*
 * The caller's side; @ctx is what it passed to the call that led here.
 */
struct mr_requester_ops {
	/* The WQE at send queue index @idx (between head and tail). */
	struct mr_swqe *(*wqe)(void *ctx, u32 idx);
	/*
	 * What @w's message carries beyond the engine's fields: remote
	 * address and key, atomic operands, immediate or key to invalidate,
	 * solicited event (the engine fills opcode, msn, ssn and length).
	 */
	void (*msg)(void *ctx, const struct mr_swqe *w, struct mr_req_msg *m);
	/*
	 * Send request packet @p of @w: headers, path, PSN and timestamp are
	 * filled, the caller adds the QPNs and the p->payload_len payload
	 * bytes of the message at p->dxh.offset. Returns 0, MR_REQ_TX_AGAIN,
	 * or the status (non-zero) @w fails with (its source buffer is bad).
	 */
	int (*emit)(void *ctx, struct mr_swqe *w, struct mr_pkt *p);
	/* Execute local operation @w (in SQ order); returns its status. */
	u8 (*local)(void *ctx, struct mr_swqe *w);
	/*
	 * Place @len response bytes at byte @off of READ or atomic @w's local
	 * buffer (an atomic's original value: 8 bytes at 0). Returns 0 or
	 * the status (non-zero) @w fails with.
	 */
	u8 (*place)(void *ctx, struct mr_swqe *w, u32 off, const void *buf,
		    u32 len);
	/*
	 * Send PROBE @p (MR-MP-9); the caller adds the QPNs. Returns whether
	 * it went out (MR_REQ_EV_PROBE counts those): false if the caller
	 * may not probe the peer (MR-VER-15) or found no memory. The path
	 * counts the PROBE as outstanding either way.
	 */
	bool (*probe)(void *ctx, struct mr_pkt *p);
	/* Report @ev: @n how many, @w the WR concerned (or NULL). */
	void (*event)(void *ctx, enum mr_req_event ev, u64 n,
		      const struct mr_swqe *w);
};

/*
 * With more than one path, a READ is asked for in ranges of this many
 * packets by default, one READ_REQ each (MR-MP-28): its responses then
 * spread over the paths like WRITE data, in bursts no longer than this.
 */
#define MR_REQ_RD_SPLIT_PKTS	8

/*
 * The most READ/ATOMIC WRs outstanding a requester supports: as many as
 * a responder keeps answers for (MR_RDRESP_RECS, MR-VERBS-15), the
 * kernel's limit too. A larger max_rd_atomic is cut to it.
 */
#define MR_REQ_MAX_RD_ATOMIC	128

struct mr_requester_params {
	u32 mtu;		/* payload bytes per packet */
	/* READ/ATOMIC WRs outstanding (MR-VERBS-15), MR_REQ_MAX_RD_ATOMIC */
	u32 max_rd_atomic;
	/* READ response bytes requested and not yet received, at most */
	u32 rd_bytes_max;
	/* READ range per READ_REQ with > 1 path, packets (0: the default) */
	u32 rd_split_pkts;
	/* SQ indices and msn_idx slots: a power of two */
	u32 sq_size;
	u32 probe_id;		/* MBH.psn of the first PROBE (MR-SEC-3) */
	bool path_health;	/* MR-MP-8..12 on */
	u8 status[MR_REQ_ST_N];	/* the caller's codes, each non-zero */
};

struct mr_requester {
	struct mr_sender snd;
	const struct mr_requester_ops *ops;
	struct mr_requester_params p;
	u32 msn_next;		/* msn of the next request message */
	u32 ssn_next;		/* ssn of the next receive-consuming one */
	u32 cur;		/* SQ index of the WQE being packetized */
	u32 cur_off;		/* its bytes already packetized */
	u32 probe_id;
	u64 rerolls_seen;	/* snd.pt.rerolls already reported */
	u64 explores_seen;	/* snd.pt.explores already reported */
	u32 rd_atomic_out;	/* READ/ATOMIC WRs started, not retired */
	/*
	 * The SQ indices of those WRs, oldest first, from rd_idx[rd_first]
	 * (mod MR_REQ_MAX_RD_ATOMIC), rd_n of them: the READ/ATOMIC walk,
	 * which runs after every packet received, visits them alone, not
	 * every WQE between the head and cur - thousands of WRITEs may
	 * wait behind a READ whose data is slow to come.
	 */
	u32 rd_idx[MR_REQ_MAX_RD_ATOMIC];
	u32 rd_first;
	u32 rd_n;
	u64 rd_bytes_out;	/* READ bytes requested, not arrived */
	/*
	 * The oldest hole of a READ whose RACK check is due (rdreq.h), or
	 * MR_TIME_NEVER: the run reo_wnd after it asks again.
	 */
	u64 rd_hole_ns;
	u64 failed_ns;		/* when the scoreboard failed (reqdone.h) */
	/*
	 * Once the scoreboard failed, each head check asks whether a later
	 * WR failed (reqdone.h). While fail_known, no WQE in [head,
	 * fail_from) had finished with an error when last looked, and none
	 * has since (a WQE's error is final until it retires): the next
	 * check looks on from fail_from, so completing a queue of any
	 * depth takes one pass over it, not one per WR.
	 */
	u32 fail_from;
	bool fail_known;
	bool halted;		/* a WR failed before it was sent */
	bool tx_nomem;		/* a packet found no memory */
	/*
	 * The READ/ATOMIC walk stopped because the window, credit or pacer
	 * held its next request (MR-CC-2, MR-CC-12): the pacer's time, or
	 * the feedback that frees the window, brings the next run.
	 */
	bool rd_held;
	/*
	 * SQ index of the WQE of each started message, by msn & (sq_size -
	 * 1): the started, unretired WQEs have consecutive msns and are at
	 * most sq_size, so a response finds its WQE in O(1). The caller
	 * allocates it (sq_size entries).
	 */
	u32 *msn_idx;
	/*
	 * Byte offset in its message of each outstanding packet, and the
	 * range a READ_REQ asked, by PSN: a message's PSNs need not be
	 * consecutive (READ ranges are requested in between), and a lost
	 * packet goes out again exactly as it was (MR-PLACE-14).
	 */
	u32 pkt_off[MR_TXSB_WIN];
	u32 pkt_len[MR_TXSB_WIN];
	/* ... and its message: a response must name both (MR-REL-26). */
	u32 pkt_msn[MR_TXSB_WIN];
};

/*
 * (Re)start with send queue head @head. The sender (r->snd) is
 * initialised by the caller; r->msn_idx and r->ops are kept.
 */
void mr_requester_start(struct mr_requester *r,
			const struct mr_requester_params *p, u32 head);

/*
 * The WQE of started request message @msn (head .. the packetizing
 * point), or NULL: a response or NACK may name any msn.
 */
struct mr_swqe *mr_requester_find(const struct mr_requester *r, u32 head,
				  u32 msn, void *ctx);

/*
 * May the WQE at @head (the queue not empty) complete now, and how
 * (reqdone.h)? Completion is in SQ order (MR-VERBS-22).
 */
enum mr_done mr_requester_head(struct mr_requester *r, u32 head, u64 now,
			       void *ctx);

/*
 * A WR the wire cannot carry and no responder would accept, refused when
 * it is posted (MR-VERBS-23): an atomic at a remote address that is not
 * 8-byte aligned (MR-HDR-14; the responder would NACK INVALID_REQ) or a
 * READ or WRITE whose remote range wraps 2^64 (MR-HDR-10; NACK
 * REMOTE_ACCESS). @w's op and length are set. Returns 0, or the status
 * from the caller's @status table that NACK would give (MR-VERBS-22):
 * the WR completes with it in SQ order and the QP enters Error.
 */
u8 mr_swqe_refused(const struct mr_swqe *w, u64 remote_addr,
		   const u8 *status);

/*
 * The status a WQE completes with once its QP is in Error (MR-VERBS-25):
 * its own error if it finished with one, else @flush. Also for QPs
 * without a requester (UD, GSI).
 */
static inline u8 mr_swqe_flushed(const struct mr_swqe *w, u8 flush)
{
	return w->state == MR_SWQE_DONE && w->status ? w->status : flush;
}

/*
 * mr_requester_head() in the caller's terms: false while the WQE at
 * @head (the queue not empty) may not complete, else true with its
 * status in *@status (0: success; the others from p.status[]). In Error
 * the caller completes every WQE at once by mr_swqe_flushed() instead:
 * it may have entered Error before the requester ever started.
 */
bool mr_requester_complete(struct mr_requester *r, u32 head, u64 now,
			   void *ctx, u8 *status);

/*
 * The caller retired WQE @w, which was at @head (head is now @head + 1):
 * its READ/ATOMIC limits are released.
 */
void mr_requester_retired(struct mr_requester *r, const struct mr_swqe *w,
			  u32 head);

/* Everything started has completed (SQD drained). */
bool mr_requester_idle(const struct mr_requester *r, u32 head);

/*
 * The caller's timer fired (armed at mr_requester_deadline()): the next
 * mr_requester_run() may act on an expired RTO or declare a path DEAD
 * (MR-MP-8), and only that run; call it right before that run, with no
 * packet handled in between (MR-LOSS-7). Any other run leaves both to
 * the timer, which the still-due deadline brings at once.
 */
void mr_requester_on_timer(struct mr_requester *r);

/*
 * Time passed and there may be work: run the deadlines (a spent retry
 * budget fails the WR it is charged to), path health, then send at most
 * @budget packets: retransmissions, READ/ATOMIC follow-ups, then new
 * work from [packetizing point, @tail) if @new_work. Returns true if a
 * WQE finished (the caller completes from its head again).
 */
bool mr_requester_run(struct mr_requester *r, u32 head, u32 tail,
		      bool new_work, u64 now, int budget, void *ctx);

/*
 * A packet for the requester (decoded, for this QP, in a state that
 * sends): ACK, NACK, READ_RESP, ATOMIC_RESP or PROBE_REPLY; @ce: it
 * arrived with CE in its IP header. Feedback moves the sender; a fatal
 * NACK fails the WR it names with the status the spec maps it to
 * (MR-VERBS-22); new response bytes are placed once and acknowledge their
 * request (MR-REL-21, MR-PLACE-6), and the response is counted by
 * congestion control as one packet an ACK reported, CE-marked if @ce
 * (MR-CC-1, MR-CC-15); a trimmed response makes its READ ask again for
 * the piece it names (MR-REL-16). The caller then runs the requester.
 */
void mr_requester_rcv(struct mr_requester *r, u32 head, u32 tail,
		      const struct mr_pkt *p, bool ce, u64 now, void *ctx);

/*
 * mr_requester_rcv() for a caller that cannot see the IP ECN field:
 * responses feed no ECN signal to congestion control, neither a mark
 * nor a packet count (one without the other would bias alpha, MR-CC-4).
 */
void mr_requester_on_pkt(struct mr_requester *r, u32 head, u32 tail,
			 const struct mr_pkt *p, u64 now, void *ctx);

/* When mr_requester_run() is due next; MR_TIME_NEVER: nothing to do. */
u64 mr_requester_deadline(const struct mr_requester *r, u32 head, u32 tail,
			  u64 now);

#endif /* MR_PROTO_REQUESTER_H */
