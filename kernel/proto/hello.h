/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * MetaRoCE connection setup (spec revision 1.1, MR-VER-9..MR-VER-16):
 * the HELLO exchange of one RC QP, without I/O.
 *
 * Each end announces its revision, capability bitmap and responder
 * limits in a HELLO once its QP may answer (RTR: answers only) and sends
 * (RTS: repeated on a backoff until the peer's HELLO is seen, at most
 * tries times). The first valid HELLO of the peer settles the QP: the
 * common capability set is the AND of both bitmaps and never changes
 * again. A peer that never answers is a revision 1.0 peer: the QP keeps
 * the base set (no capability) for its life. Until settled, the QP
 * behaves as towards a 1.0 peer, so nothing waits for the exchange.
 *
 * The caller keeps the clock, builds and sends the packets
 * (mr_hello_fill()), arms a timer at mr_hello_deadline() and serialises
 * every call on one object.
 */
#ifndef MR_PROTO_HELLO_H
#define MR_PROTO_HELLO_H

#include "compat.h"
#include "txsb.h"
#include "wire.h"

/* The revision this core implements (HLH.rev_major.rev_minor). */
#define MR_REV_MINOR		1

/* Defaults (MR-VER-14): about a second of tries before "1.0 peer". */
#define MR_HELLO_INTERVAL_NS	(1000ULL * 1000)	/* first gap 1 ms */
#define MR_HELLO_INTERVAL_MAX_NS (128ULL * 1000 * 1000)	/* doubles to this */
#define MR_HELLO_TRIES		14
#define MR_HELLO_REPLY_GAP_NS	(100ULL * 1000)		/* answers: 1/100 us */

enum mr_hello_state {
	MR_HELLO_OFF,		/* acting as a 1.0 node: no HELLO at all */
	MR_HELLO_WAIT,		/* announcing, the peer's HELLO not seen */
	MR_HELLO_SETTLED,	/* peer's HELLO seen: common set fixed */
	MR_HELLO_OLD_PEER,	/* no answer after every try: base set */
};

struct mr_hello_params {
	bool enabled;		/* false: MR_HELLO_OFF (a 1.0 node) */
	u32 caps;		/* announced; MR_CAP_CORE is always added */
	u32 max_read_range;	/* announced responder limit (MR-REL-31) */
	u64 interval_ns;	/* first repeat gap, doubled each try */
	u64 interval_max_ns;
	u32 tries;		/* HELLOs sent before giving up (>= 1) */
	u64 reply_gap_ns;	/* answers at most one per this (MR-SEC-8) */
};

struct mr_hello {
	struct mr_hello_params p;
	u8 state;		/* enum mr_hello_state */
	bool sending;		/* RTS reached: the timer sends */
	bool seen;		/* a valid HELLO of the peer came */
	bool peer_has_ours;	/* a HELLO with SEEN came */
	u32 sent;		/* HELLOs sent by the timer */
	u64 next_ns;		/* next repeat, MR_TIME_NEVER if none */
	u64 reply_next;		/* earliest next answer */
	/* The peer's announcement, once settled. */
	u8 peer_minor;
	u32 peer_caps;
	u32 peer_read_range;
	u32 common;		/* settled: own & peer; else 0 (base set) */
};

/* What mr_hello_on_rx() made of a HELLO (one counter each). */
enum mr_hello_rx {
	MR_HELLO_RX_SETTLED,	/* the first: the common set is now fixed */
	MR_HELLO_RX_REPEAT,	/* the same announcement again */
	MR_HELLO_RX_CONFLICT,	/* differs from the settled one: dropped */
	MR_HELLO_RX_LATE,	/* after giving up: answered, not used */
	MR_HELLO_RX_IGNORED,	/* acting as 1.0: dropped as unknown */
};

/* What mr_hello_on_timer() wants. */
enum mr_hello_tx {
	MR_HELLO_TX_NONE,
	MR_HELLO_TX_SEND,	/* send a HELLO now (mr_hello_fill()) */
	MR_HELLO_TX_GAVE_UP,	/* every try unanswered: a 1.0 peer */
};

void mr_hello_default_params(struct mr_hello_params *p);

/* QP to RTR: announce-ready, may answer; nothing sent yet. */
void mr_hello_init(struct mr_hello *h, const struct mr_hello_params *p);

/* QP to RTS at @now: the first HELLO is due now unless already settled. */
void mr_hello_on_rts(struct mr_hello *h, u64 now);

/* Next time mr_hello_on_timer() has work, MR_TIME_NEVER if none. */
u64 mr_hello_deadline(const struct mr_hello *h);

/* The timer at @now: send a HELLO, give up, or nothing. */
enum mr_hello_tx mr_hello_on_timer(struct mr_hello *h, u64 now);

/*
 * A valid HELLO @p of the QP's peer (it passed MR-MAL-2 through the QP
 * and source checks) at @now. *@reply is set if a HELLO with SEEN must
 * answer it now; *@limited if an answer was due but rate-limited.
 */
enum mr_hello_rx mr_hello_on_rx(struct mr_hello *h, const struct mr_pkt *p,
				u64 now, bool *reply, bool *limited);

/*
 * Fill HELLO @p (opcode, HLH; MBH path 0, psn 0, no flags; the caller
 * adds QPNs and the timestamp).
 */
void mr_hello_fill(const struct mr_hello *h, struct mr_pkt *p);

/* Is @cap in the common set (settled, both announced it)? */
static inline bool mr_hello_common(const struct mr_hello *h, u32 cap)
{
	return (h->common & cap) == cap;
}

/*
 * MR-VER-15: may this QP's requester send PROBEs? Yes towards a peer not
 * known to lack Multipath (a 1.0 peer, or not settled yet).
 */
static inline bool mr_hello_may_probe(const struct mr_hello *h)
{
	return h->state != MR_HELLO_SETTLED ||
	       mr_hello_common(h, MR_CAP_MULTIPATH);
}

/*
 * MR-VER-16: the longest READ range this requester may ask of the peer,
 * given its own limit @own: min(own, peer's announced), and the 1.0 value
 * towards a peer that announced none.
 */
u32 mr_hello_read_range(const struct mr_hello *h, u32 own);

/* Short name of a state ("off", "wait", "settled", "old_peer"). */
const char *mr_hello_state_name(u8 state);

#endif /* MR_PROTO_HELLO_H */
