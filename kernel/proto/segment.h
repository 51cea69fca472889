/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * MetaRoCE requester segmentation: one request message (a send WQE) into
 * its packets. Which headers an opcode carries, how the payload is cut at
 * the path MTU, which packet is FIRST or LAST, which carries ACKREQ or SE,
 * how a READ_REQ asks for a range and an atomic for its operands: written
 * once here for the kernel's requester, the model test, the profiling
 * harness and the user-space endpoint. No I/O: the caller copies the
 * payload bytes at DXH.offset and sets path, QPNs and timestamp.
 */
#ifndef MR_PROTO_SEGMENT_H
#define MR_PROTO_SEGMENT_H

#include "compat.h"
#include "wire.h"

/* A request message as its packets describe it (MR-HDR-7..16). */
struct mr_req_msg {
	u8 opcode;		/* wire opcode: MR_OPA_REQ or MR_OPA_UC */
	bool solicited;		/* SE on its last packet (MR-VERBS-14) */
	u32 msn;
	u32 ssn;		/* receive WQE it consumes (MR_OPA_SSN) */
	u32 length;		/* payload bytes; READ: bytes to read */
	u64 va;			/* RXH (WRITE*, READ) or AXH (atomics) */
	u32 rkey;
	u64 swap_add;		/* atomics: swap (CS) or add (FA) value */
	u64 compare;		/* CS only; 0 for FA (MR-HDR-14) */
	u32 imm;		/* SEND_IMM/WRITE_IMM data, SEND_INV key */
};

/*
 * The packet of @m at payload byte @off, or a READ_REQ for the range
 * [@off, @off + @rlen) of a READ (MR-REL-24). Fills opcode, flags, DXH,
 * RXH/AXH, immediate or key, and payload_len (at most @mtu; none for a
 * READ_REQ or atomic, which are one packet each); not the path, QPNs,
 * PSN, timestamp or payload pointer. @retx marks a retransmission or a
 * re-request. Every packet that ends a message, and every
 * retransmission, asks for an ACK (MR-REL-12); a UC packet never does
 * (MR-UC-3). Returns true if it is the
 * last packet of the message.
 */
bool mr_req_segment(const struct mr_req_msg *m, u32 off, u32 mtu, u32 rlen,
		    bool retx, struct mr_pkt *p);

/* Packets message @m needs at @mtu (one for READ_REQ and atomics). */
u32 mr_req_npkts(const struct mr_req_msg *m, u32 mtu);

#endif /* MR_PROTO_SEGMENT_H */
