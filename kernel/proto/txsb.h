/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * MetaRoCE sender scoreboard.
 *
 * Tracks every outstanding request PSN of one QP over the 256-packet window
 * (MR-WIN-3, MR-REL-19): send time, path, retransmit count, sacked/lost
 * state and the message (msn) the packet belongs to.  Processes ACK/NACK
 * feedback (cumulative PSN + 256-bit SACK + timestamp echo), detects loss
 * RACK-style (time based, never by counting duplicate ACKs, MR-LOSS-1/2),
 * runs the RTO timer with RFC 6298 estimation and exponential backoff
 * (MR-LOSS-5..9), undoes an RTO that the timestamp echo proves spurious
 * (MR-LOSS-15), and enforces the verbs retry_cnt / rnr_retry budgets
 * (MR-RETRY-1..9).
 *
 * Pure state machine: the caller owns the memory, passes the time in
 * (now_ns, a monotonic nanosecond clock: new PSNs are registered in send
 * order, which RACK relies on) and performs all I/O.
 */
#ifndef MR_PROTO_TXSB_H
#define MR_PROTO_TXSB_H

#include "compat.h"
#include "wire.h"

/* Outstanding window in packets = SACK bitmap width (MR-WIN-1). */
#define MR_TXSB_WIN		MR_WINDOW
#define MR_TXSB_WIN_MASK	(MR_TXSB_WIN - 1)
/* Path indices carried in MBH.path and stored per packet. */
#define MR_TXSB_MAX_PATHS	MR_MAX_PATHS
/* "No deadline" for the u64 nanosecond clock. */
#define MR_TIME_NEVER		(~0ULL)

/* struct mr_txsb_ent.flags */
#define MR_TXE_FIRST	0x01	/* first packet of its message */
#define MR_TXE_LAST	0x02	/* last packet of its message */
#define MR_TXE_SACKED	0x04	/* selectively acknowledged */
#define MR_TXE_LOST	0x08	/* declared lost, retransmission pending */
#define MR_TXE_RTO	0x10	/* ... by an RTO expiry (undone if spurious) */
#define MR_TXE_USER	(MR_TXE_FIRST | MR_TXE_LAST)

/* rnr_retry value meaning "retry forever" (IBTA). */
#define MR_RNR_RETRY_INFINITE	7

struct mr_txsb_ent {
	u64 sent_ns;	/* time of the most recent (re)transmission */
	u32 msn;	/* request message this packet belongs to */
	u16 retx;	/* retransmissions of this PSN so far */
	u8 path;	/* path index of the most recent copy */
	u8 flags;	/* MR_TXE_* */
};

struct mr_txsb_params {
	u64 init_rto_ns;	/* RTO before the first RTT sample */
	u64 min_rto_ns;		/* lower clamp of the computed RTO */
	u64 max_rto_ns;		/* upper clamp, also caps backoff */
	u64 reo_wnd_min_ns;	/* floor of the RACK reordering window */
	/*
	 * T_verbs (MR-RETRY-1/3), see mr_ib_timeout_ns(): caps the RTO and
	 * is the period in which at most one RTO expiry counts against
	 * retry_cnt.  MR_TIME_NEVER (verbs timeout 0): the QP never fails
	 * by retries.  0: every expiry counts (no verbs timeout semantics).
	 */
	u64 verbs_timeout_ns;
	/*
	 * ACKs and NACKs whose ts_echo is in the future or older than this
	 * are dropped (MR-SEC-6): the echo must be one of our own recent
	 * timestamps, which an off-path forger does not know.
	 */
	u64 ack_max_age_ns;
	u32 ts_offset;		/* per-QP random offset of MBH.ts (MR-SEC-6) */
	u8 retry_cnt;		/* verbs retry_cnt, 0..7 */
	u8 rnr_retry;		/* verbs rnr_retry, 0..7, 7 = infinite */
};

/*
 * Results of feedback and timer processing (return values >= 0).
 * Negative return values are enum mr_err (wire.h): invalid input, no
 * state change.
 */
enum mr_txsb_status {
	MR_TXSB_OK = 0,
	MR_TXSB_RETRY_EXCEEDED,		/* retry_cnt exhausted: QP error */
	MR_TXSB_RNR_RETRY_EXCEEDED,	/* rnr_retry exhausted: QP error */
	MR_TXSB_RNR_WAIT,		/* RNR NACK accepted, sending paused */
	MR_TXSB_RESOURCE_WAIT,		/* NACK RESOURCE accepted, paused */
	MR_TXSB_TRIMMED,		/* trimmed PSN queued for retransmit */
	MR_TXSB_SEQ_ERR,		/* peer saw a PSN outside its window */
	MR_TXSB_REM_ACCESS_ERR,		/* NACK REMOTE_ACCESS: QP error */
	MR_TXSB_REM_INV_REQ,		/* NACK INVALID_REQ: QP error */
	MR_TXSB_REM_OP_ERR,		/* NACK REMOTE_OP: QP error */
	MR_TXSB_NACK_UNKNOWN,		/* unknown NACK reason, ignored */
	MR_TXSB_IGNORED,		/* stale/duplicate NACK, no effect */
	MR_TXSB_FAILED,			/* a budget was exhausted before */
};

struct mr_txsb_result {
	u32 newly_acked;	/* delivered by cum_psn advance, not sacked */
	u32 newly_sacked;	/* delivered by a new SACK bit */
	u32 newly_lost;		/* declared lost (RACK, RTO, RNR, trim) */
	u32 spurious;		/* delivered although already marked lost */
	u32 una;		/* oldest unacked PSN after processing */
	bool una_advanced;
	bool stale;		/* cum_psn before una: ignore its credit */
	bool done_valid;	/* a message's LAST packet was cum-acked */
	u32 done_msn;		/* highest such msn (all earlier also done) */
	bool rtt_valid;
	u64 rtt_ns;		/* RTT sample from the timestamp echo */
	bool rto_fired;
	/*
	 * The first ACK after an RTO echoed a copy sent before the expiry:
	 * the RTO was spurious and is undone here (MR-LOSS-15); the caller
	 * undoes congestion control, mr_cc_on_rto_undo() (MR-CC-11).
	 */
	bool rto_undone;
	u32 nack_psn;		/* PSN of an effective NACK */
	u32 nack_msn;
	u8 nack_path;
	u64 rnr_wait_ns;	/* RNR/RESOURCE delay the responder asked for */
	u64 path_delivered_mask;	/* paths with newly delivered packets */
	u64 path_lost_mask;		/* paths with newly lost packets */
	u16 path_delivered[MR_TXSB_MAX_PATHS];
	u16 path_lost[MR_TXSB_MAX_PATHS];
};

struct mr_txsb_stats {
	u64 sent;		/* first transmissions */
	u64 retx;		/* retransmissions */
	u64 acked;		/* delivered via cum_psn */
	u64 sacked;		/* delivered via SACK first */
	u64 lost_rack;		/* declared lost by RACK */
	u64 lost_rto;		/* declared lost by RTO */
	u64 lost_other;		/* RNR, trim, path failover */
	u64 spurious;		/* lost, then delivered anyway */
	u64 rto;		/* RTO expirations */
	u64 spurious_rto;	/* RTO episodes undone (MR-LOSS-15) */
	u64 rnr;		/* RNR NACKs honoured */
	u64 resource;		/* RESOURCE NACKs honoured (MR-REL-34) */
	u64 trims;		/* trimmed NACKs honoured */
	u64 ignored_nacks;	/* NACKs for no outstanding copy */
	u64 seq_err;		/* NACK SEQ_ERR received */
	u64 old_samples;	/* RTT samples discarded (age, future) */
	u64 stale_acks;		/* ACKs with cum_psn behind una */
	u64 aged_acks;		/* ACKs/NACKs refused by their ts_echo */
	u64 bad_acks;		/* ACKs rejected as invalid */
};

struct mr_txsb {
	struct mr_txsb_params p;
	u32 una;		/* oldest unacked PSN */
	u32 nxt;		/* next new PSN */
	u32 n_sacked;		/* outstanding entries with SACKED */
	u32 n_lost;		/* outstanding entries with LOST */

	/* RFC 6298 estimator (MR-LOSS-5) */
	bool rtt_valid;
	u64 srtt_ns;
	u64 rttvar_ns;
	u64 min_rtt_ns;

	/* RACK: most recently sent packet known delivered (MR-LOSS-2) */
	bool rack_valid;
	u64 rack_sent_ns;
	u64 rack_rtt_ns;
	u32 rack_psn;
	bool rack_retx;		/* R's latest copy was a retransmission */
	bool rack_dirty;	/* R moved since the last detection pass */
	u64 rack_thresh_ns;	/* rack_rtt + reo_wnd of that pass */
	/*
	 * R per path: a packet is judged only against later packets of its
	 * own path, which share its route and so its queues (MR-LOSS-2);
	 * across paths, queues differ by more than any reo_wnd.
	 */
	u64 rack_path_valid;	/* bit per path */
	u64 rack_path_sent_ns[MR_TXSB_MAX_PATHS];
	u64 rack_path_rtt_ns[MR_TXSB_MAX_PATHS];
	u32 rack_path_psn[MR_TXSB_MAX_PATHS];
	u64 reo_deadline_ns;	/* 0: no reordering timer pending */

	/* RTO timer (MR-LOSS-6..9) and retry budget (MR-RETRY-1) */
	u64 max_rto_eff_ns;	/* max_rto capped by T_verbs */
	u64 rto_start_ns;
	u32 backoff;		/* RTO shift, reset on progress */
	u32 rto_expiries;	/* counted expiries E, reset on progress */
	u64 retry_ref_ns;	/* L: last counted expiry or progress */
	bool failed;		/* a budget is exhausted: send nothing */
	/*
	 * An expired RTO waits for the owner's timer (MR-LOSS-7), so that
	 * feedback queued behind it is handled first. Set and cleared by the
	 * owner (requester.h); mr_txsb_next_deadline() still reports it due.
	 */
	bool rto_held;
	/* spurious RTO detection (MR-LOSS-15) */
	bool rto_pending;	/* expired, no delivering ACK since */
	u32 rto_ts;		/* MBH.ts clock at the episode's 1st expiry */

	/* RNR (MR-RETRY-5/6) and RESOURCE (MR-RETRY-10) pauses */
	bool rnr_active;	/* an RNR'd PSN is not yet delivered */
	bool rnr_wait;		/* sending paused until rnr_until_ns */
	u32 rnr_psn;
	u32 pause_psn;		/* resent from here when the pause ends */
	u32 rnr_count;
	u64 rnr_until_ns;

	struct mr_txsb_stats st;
	struct mr_txsb_ent ent[MR_TXSB_WIN];
};

/* Defaults for a software device; see txsb.c for the reasoning. */
void mr_txsb_default_params(struct mr_txsb_params *p);
/* Returns MR_ERR_INVAL on inconsistent parameters. */
int mr_txsb_init(struct mr_txsb *sb, const struct mr_txsb_params *p,
		 u32 init_psn);

/* IBTA RNR NAK timer encoding (0..31) to nanoseconds. */
u64 mr_rnr_timer_ns(u8 code);
/* IBTA local ACK timeout encoding (4.096 us * 2^t); 0 means infinite. */
u64 mr_ib_timeout_ns(u8 timeout);
/* Microsecond clock at now_ns (wraps), without the QP's offset. */
u32 mr_txsb_ts(u64 now_ns);
/* MBH.ts for a packet of this QP sent at now_ns (MR-HDR, MR-SEC-6). */
static inline u32 mr_txsb_stamp(const struct mr_txsb *sb, u64 now_ns)
{
	return mr_txsb_ts(now_ns) + sb->p.ts_offset;
}

/*
 * Register a new packet at PSN sb->nxt.  @flags: MR_TXE_FIRST/LAST.
 * Returns 0 and the PSN in *psn, MR_ERR_NOSPACE if the window is full or
 * MR_ERR_INVAL (also while mr_txsb_can_send() is false: RNR pause, failed
 * QP).
 */
int mr_txsb_on_send(struct mr_txsb *sb, u32 msn, u8 flags, u8 path,
		    u64 now_ns, u32 *psn);
/* Record the retransmission of outstanding, undelivered @psn on @path. */
int mr_txsb_on_retx(struct mr_txsb *sb, u32 psn, u8 path, u64 now_ns);
/* A progress event seen outside the scoreboard (READ/ATOMIC responses). */
void mr_txsb_on_progress(struct mr_txsb *sb, u64 now_ns);

/*
 * Process a decoded ACK (AKH: cum_psn, SACK, ts_echo; the msn, ECN and
 * credit fields are for the caller and cc).  Returns MR_TXSB_OK or a
 * negative enum mr_err (MR_ERR_ACK_RANGE: acknowledges unsent PSNs;
 * MR_ERR_ACK_AGE: ts_echo in the future or older than ack_max_age,
 * MR-SEC-6); on error nothing changed.
 */
int mr_txsb_on_ack(struct mr_txsb *sb, const struct mr_akh *akh,
		   u64 now_ns, struct mr_txsb_result *res);
/*
 * Process a decoded NACK: its AKH part like an ACK, then the NKH reason for
 * nack_psn.  Returns an mr_txsb_status (>= 0) or a negative enum mr_err.
 */
int mr_txsb_on_nack(struct mr_txsb *sb, const struct mr_akh *akh,
		    const struct mr_nkh *nkh, u64 now_ns,
		    struct mr_txsb_result *res);
/*
 * Run expired timers (RACK reordering timer, end of an RNR pause, RTO;
 * not the RTO while rto_held). Returns MR_TXSB_OK or
 * MR_TXSB_RETRY_EXCEEDED (then, and after MR_TXSB_RNR_RETRY_EXCEEDED, the
 * scoreboard refuses to send: MR-RETRY-9).
 */
int mr_txsb_on_timer(struct mr_txsb *sb, u64 now_ns,
		     struct mr_txsb_result *res);
/* Earliest time mr_txsb_on_timer() has work; MR_TIME_NEVER if none. */
u64 mr_txsb_next_deadline(const struct mr_txsb *sb);
/* Current RTO including backoff. */
u64 mr_txsb_rto(const struct mr_txsb *sb);
/* The RTO without backoff (the unit of dead_rtos, MR-MP-8). */
u64 mr_txsb_base_rto(const struct mr_txsb *sb);
/* Current RACK reordering window. */
u64 mr_txsb_reo_wnd(const struct mr_txsb *sb);

/* Lowest PSN pending retransmission; false if none or RNR-paused. */
bool mr_txsb_next_retx(const struct mr_txsb *sb, u64 now_ns, u32 *psn);
/* Mark every undelivered packet last sent on @path lost; returns count. */
u32 mr_txsb_mark_path_lost(struct mr_txsb *sb, u8 path,
			   struct mr_txsb_result *res);
/* Paths carrying undelivered, not-lost packets (bit per path index). */
u64 mr_txsb_paths_in_flight(const struct mr_txsb *sb);

/* Entry for outstanding @psn, NULL if not outstanding. */
const struct mr_txsb_ent *mr_txsb_get(const struct mr_txsb *sb, u32 psn);

static inline u32 mr_txsb_outstanding(const struct mr_txsb *sb)
{
	return (sb->nxt - sb->una) & 0xffffff;
}

/* Packets presumed in the network: outstanding - sacked - lost. */
static inline u32 mr_txsb_inflight(const struct mr_txsb *sb)
{
	return mr_txsb_outstanding(sb) - sb->n_sacked - sb->n_lost;
}

static inline bool mr_txsb_window_full(const struct mr_txsb *sb)
{
	return mr_txsb_outstanding(sb) >= MR_TXSB_WIN;
}

/*
 * New or retransmitted packets may be sent: no budget exhausted and not
 * paused by RNR (call mr_txsb_on_timer() when the pause ends: it declares
 * the RNR'd packets lost).
 */
static inline bool mr_txsb_can_send(const struct mr_txsb *sb, u64 now_ns)
{
	(void)now_ns;
	return !sb->failed && !sb->rnr_wait;
}

#endif /* MR_PROTO_TXSB_H */
