/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * MetaRoCE receiver window (responder side of selective repeat).
 *
 * A 256-bit receive map relative to cum_psn, the next expected PSN
 * (MR-WIN-2): bit i set means PSN cum_psn + i has been received; bit 0 is
 * therefore always 0. Arriving PSNs are classified as new (in order or out
 * of order), duplicate (before cum_psn or already received) or beyond the
 * window (>= cum_psn + 256), MR-REL-1. The ACK policy (MR-REL-3) counts
 * packets and CE marks since the last ACK and decides when to acknowledge:
 * every ack_every accepted packets (every second while an overdue hole is
 * open) or after delack_ns, at once only for what the requester must
 * learn promptly (an overdue hole: ack_reorder or more PSNs before the
 * highest received; the fill of one; a duplicate, CE, ACKREQ).
 *
 * Usage per arriving request packet (after decode and ICRC, MR-REL-6):
 *	cls = mr_rxwin_classify(w, psn);
 *	if NEW/NEW_OOO: checks (mr_rxmsg_check() among them), place,
 *	mr_rxmsg_record(), mr_rxwin_mark(w, psn);
 *	if DUP: drop (count, answer per MR-REL-7..9);
 *	if BEYOND: drop, rate-limited NACK SEQ_ERR (MR-REL-10) whose AKH comes
 *	from mr_rxwin_ack_fill() with ts_echo set to the packet's timestamp;
 *	if (mr_rxwin_note(w, cls, flags, ce, ts, now)) send an ACK built by
 *	mr_rxwin_ack_fill(); also whenever mr_rxwin_ack_due(w, now) turns true.
 * A packet refused after classification (RNR, trimmed, error point) is
 * neither marked nor noted.
 * Classification does not change state, so a packet refused later leaves
 * the window untouched.
 */
#ifndef MR_PROTO_RXWIN_H
#define MR_PROTO_RXWIN_H

#include "compat.h"
#include "psn.h"
#include "wire.h"

/*
 * ack_every and ack_delay (MR-REL-3, MR-REL-13) of the software device
 * profile; ack_every at most MR_RXWIN_ACK_EVERY_MAX, the packets a
 * requester keeps free before it asks for an ACK (MR-REL-14).
 */
#define MR_RXWIN_ACK_EVERY	4	/* ACK every 4th accepted packet */
#define MR_RXWIN_ACK_EVERY_MAX	8
#define MR_RXWIN_ACK_EVERY_HOLE	2	/* ... while a hole is open */
/*
 * ack_reorder (MR-REL-3 c): a missing PSN is overdue, and reported at
 * once, only when a PSN this far after it was received.
 */
#define MR_RXWIN_ACK_REORDER	3
#define MR_RXWIN_ACK_REORDER_MAX 8
#define MR_RXWIN_DELACK_NS	500000ULL /* delayed-ACK timer (MR-REL-13) */
#define MR_RXWIN_STALE_AGE_US	100000U	/* stale_age (MR-WIN-6) */
#define MR_RXWIN_FUTURE_AGE_US	1000000U /* future_age (MR-WIN-6) */

enum mr_rx_class {
	MR_RX_NEW	= 0,	/* psn == cum_psn */
	MR_RX_NEW_OOO	= 1,	/* cum_psn < psn < cum_psn + 256, not received */
	MR_RX_DUP	= 2,	/* before cum_psn, or already received */
	MR_RX_BEYOND	= 3,	/* >= cum_psn + 256 (or not a 24-bit PSN) */
};

struct mr_rxwin {
	u32	cum_psn;		/* every PSN before it was received */
	u64	map[MR_SACK_WORDS];	/* bit i: cum_psn + i received */

	/* ACK policy state since the last ACK (reset by ack_fill). */
	u64	ack_deadline_ns;	/* delayed-ACK timer expiry */
	bool	delack_armed;		/* ack_deadline_ns is valid */
	u32	ts_echo;		/* MBH.ts of the latest packet */
	u16	ce_count;		/* CE-marked packets (saturating) */
	u16	pkt_count;		/* packets seen (saturating) */
	u16	unacked;		/* new packets not yet acknowledged */
	/*
	 * Reordering (MR-REL-3 c, d, h): high_end is the PSN after the
	 * highest one received (cum_psn while nothing is SACKed); a PSN
	 * missing before ovd_end is overdue (ack_reorder or more before
	 * the highest); rep_psn is the first PSN the last ACK did not
	 * cover, so that a missing PSN before it was reported.
	 * cum_psn <= ovd_end, rep_psn <= high_end.
	 */
	u32	high_end;
	u32	ovd_end;
	u32	rep_psn;
	bool	last_overdue;		/* an unreported hole is overdue */
	bool	last_fill;		/* the last mark filled an overdue hole */
	bool	ack_now;		/* an immediate ACK is owed */
	bool	last_ce;		/* the latest counted packet had CE */

	/*
	 * Timestamp reference (MR-WIN-6): the newest MBH.ts accepted and
	 * when; the sender's clock runs at the rate of ours, so it bounds
	 * the timestamps to come.
	 */
	bool	ts_valid;
	u32	ts_ref;
	u64	ts_ref_ns;
	/*
	 * Resynchronisation (MR-WIN-6): since when only future drops have
	 * been seen (0: not), and whether the next request that the PSN
	 * window accepts as new sets the reference whatever its timestamp.
	 */
	u64	future_since_ns;
	bool	ts_resync;

	/* Configuration, defaults set by init; callers may change them. */
	u16	ack_every;		/* 1..MR_RXWIN_ACK_EVERY_MAX */
	u16	ack_reorder;		/* 1..MR_RXWIN_ACK_REORDER_MAX */
	u64	delack_ns;		/* ack_delay */
	u32	stale_age_us;
	u32	future_age_us;

	/* Lifetime counters. */
	u64	dup_pkts;
	u64	beyond_pkts;
	u64	ooo_pkts;
	u64	stale_pkts;		/* refused by mr_rxwin_ts_check(): old */
	u64	future_pkts;		/* ... from the future */
	u64	ts_resyncs;		/* references re-taken (MR-WIN-6) */
};

void mr_rxwin_init(struct mr_rxwin *w, u32 init_psn);

/* Classify @psn against the window; no state change. */
enum mr_rx_class mr_rxwin_classify(const struct mr_rxwin *w, u32 psn);

/*
 * A duplicate a requester may still send: inside the window, or at most
 * MR_WINDOW PSNs before cum_psn. A requester keeps nxt - una <= MR_WINDOW
 * (MR-WIN-3) and never resends a PSN before una, so an older "duplicate"
 * was not sent by the peer's transport (MR-REL-1): the caller drops it
 * without response, except an atomic re-sent under its own PSN
 * (MR-REL-27).
 */
bool mr_rxwin_dup_recent(const struct mr_rxwin *w, u32 psn);

/*
 * MR-WIN-6: may a request packet with MBH.ts @ts be processed at @now_ns?
 * False if it was stamped more than stale_age before the newest
 * accepted timestamp (a packet delayed long enough for the PSN space to
 * wrap), or further ahead of it than the time since its acceptance plus
 * future_age and a drift allowance (a forgery from a clock that is not
 * the peer's, which would otherwise make every genuine packet look
 * stale). A reference that was itself delayed by more than future_age (a
 * queue held it while the link was down) would make every genuine packet
 * look like the future: when nothing but future drops has come for
 * future_age, the check resynchronises - packets pass it until one that
 * the PSN window accepts as new sets the reference (mr_rxwin_ts_accept()),
 * which a forger who cannot guess PSNs cannot do. Counts refusals in
 * stale_pkts and future_pkts and resynchronisations in ts_resyncs.
 */
enum mr_ts_verdict {
	MR_TS_OK = 0,
	MR_TS_OLD,		/* before the newest by more than stale_age */
	MR_TS_FUTURE,		/* ahead by more than time since + future_age */
};

enum mr_ts_verdict mr_rxwin_ts_check(struct mr_rxwin *w, u32 ts, u64 now_ns);

static inline bool mr_rxwin_ts_ok(struct mr_rxwin *w, u32 ts, u64 now_ns)
{
	return mr_rxwin_ts_check(w, ts, now_ns) == MR_TS_OK;
}

/*
 * A packet with MBH.ts @ts was accepted (new): the newest one is kept;
 * while resynchronising, this one.
 */
void mr_rxwin_ts_accept(struct mr_rxwin *w, u32 ts, u64 now_ns);

/* True if @psn is known received (before cum_psn or marked). */
bool mr_rxwin_received(const struct mr_rxwin *w, u32 psn);

/*
 * Record @psn (which must classify NEW or NEW_OOO) as received and advance
 * cum_psn over the contiguous run. Returns the advance (0..256) or
 * MR_ERR_PSN without any change. Notes for mr_rxwin_note() whether an
 * overdue PSN (ack_reorder or more PSNs before the highest received) is
 * now missing that no ACK has reported (MR-REL-3 c; with ack_reorder 1:
 * @psn opened a new hole), and whether @psn filled an overdue hole at
 * cum_psn and moved it past SACKed PSNs (MR-REL-3 d).
 */
int mr_rxwin_mark(struct mr_rxwin *w, u32 psn);

/*
 * ACK policy (MR-REL-3, MR-REL-11, MR-REL-13) for one request packet of
 * class @cls that was accepted (after mark) or found duplicate: @flags
 * its MBH flags, @ce whether its IP header carried CE, @ts its MBH.ts.
 * Returns true if an ACK should be sent now: the ack_every-th accepted
 * packet since the last ACK (the second while an overdue hole is open),
 * an overdue unreported hole, a fill of an overdue lowest hole that
 * moves cum_psn past SACKed PSNs, a duplicate, CE or ACKREQ. Otherwise
 * (in order, reordered by less than ack_reorder, or inside the region
 * already reported) the packet is coalesced: the delayed-ACK timer runs
 * from the first unacknowledged one. MR_RX_BEYOND packets are only
 * counted (returns false: the caller's NACK SEQ_ERR replaces the ACK).
 */
bool mr_rxwin_note(struct mr_rxwin *w, enum mr_rx_class cls, u16 flags,
		   bool ce, u32 ts, u64 now_ns);

/* An ACK is owed now (immediate, or the delayed-ACK timer expired). */
bool mr_rxwin_ack_due(const struct mr_rxwin *w, u64 now_ns);

/*
 * Fill cum_psn, sack, ts_echo, ce_count, pkt_count of @akh (msn and credit
 * are the caller's) and reset the per-ACK state (MR-REL-11); every hole
 * it reports counts as reported from then on. Returns the MBH flags the
 * ACK or NACK must carry: MR_F_ECE iff the triggering packet carried CE
 * (MR-REL-12).
 */
u16 mr_rxwin_ack_fill(struct mr_rxwin *w, struct mr_akh *akh);

#endif /* MR_PROTO_RXWIN_H */
