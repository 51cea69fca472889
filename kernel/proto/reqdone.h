/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * MetaRoCE send completion rule: may the WR at the head of the send queue
 * complete now, and with which status. Completion is strictly in SQ order
 * (MR-VERBS-22), so the caller asks for its head only; the rule is the
 * requester's, written once for every caller.
 */
#ifndef MR_PROTO_REQDONE_H
#define MR_PROTO_REQDONE_H

#include "compat.h"
#include "txsb.h"
#include "wire.h"

enum mr_done {
	MR_DONE_WAIT,		/* not yet */
	MR_DONE_OWN,		/* with the status it finished with */
	MR_DONE_SUCCESS,	/* every packet acknowledged */
	MR_DONE_FLUSH,		/* a later WR failed first: WR_FLUSH_ERR */
	MR_DONE_RETRY_EXC,	/* the scoreboard gave up: RETRY_EXC_ERR */
};

/* The head WR's request message, as far as the rule needs it. */
struct mr_done_head {
	u8 opcode;		/* wire opcode */
	u32 length;
	u32 first_psn;		/* READ/ATOMIC: its latest request's PSN */
	u32 last_psn;		/* once sent */
	bool sent;		/* every packet of it went out */
	bool finished;		/* a response, a NACK or a local error ended it */
	bool ok;		/* ... with success */
};

/*
 * The verdict for head @h against scoreboard @sb. @later_failed: a WR
 * started after it finished with an error (only looked at once
 * sb->failed). *@failed_ns: when the scoreboard's failure was first seen
 * here (0: not yet; set at @now).
 *
 * @later_failed decides nothing but whether the verdict is
 * MR_DONE_RETRY_EXC: a caller may pass false, and only on that verdict
 * find out and ask again with true (the same verdict then as had it
 * passed true at first), sparing the search when the head completes
 * otherwise.
 */
enum mr_done mr_req_head_done(const struct mr_done_head *h,
			      const struct mr_txsb *sb, bool later_failed,
			      u64 *failed_ns, u64 now);

#endif /* MR_PROTO_REQDONE_H */
