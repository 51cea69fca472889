/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The verified workload of mr-ue and test_endpoint: one side of a
 * connection posts @count messages cycling through SEND, SEND_IMM,
 * WRITE, WRITE_IMM, READ, FETCH_ADD and CMP_SWAP against the peer's
 * region and receive queue, and checks every byte and every atomic's
 * original value; it also checks what the peer's messages did to its own
 * region and receive queue. Everything derives from (seed, count, size,
 * side), so each side knows what the other sends without being told.
 *
 * Region of each side (the peer's target), for count and size:
 *   [write area: one slot of size bytes per WRITE/WRITE_IMM message]
 *   [read area: one slot per READ message, filled from the seed]
 *   [two 64-bit words: the FETCH_ADD and the CMP_SWAP target]
 */
#ifndef MR_UE_LOAD_H
#define MR_UE_LOAD_H

#include <stddef.h>
#include <stdint.h>

#include "mrue.h"

struct load_remote {
	uint64_t va;
	uint32_t rkey;
	uint64_t len;
};

struct load {
	struct mrue *ue;
	uint64_t seed;
	uint32_t count;
	uint32_t size;
	uint32_t side;		/* 0 or 1: the peer is 1 - side */
	uint32_t depth;		/* sends in flight, receives posted */

	uint8_t *region;	/* the peer's target */
	size_t region_len;
	uint32_t region_key;
	uint8_t *local;		/* send/READ/atomic slots, receive buffers */
	size_t local_len;
	uint32_t local_key;
	struct load_remote peer;

	uint32_t posted, completed;		/* own messages */
	uint32_t recv_posted, recv_done, recv_expected;
	uint64_t fa_word, cs_word;	/* the peer's words after ours */
	uint64_t *want_orig;		/* per send slot */
	uint64_t reads, atomics, sends, writes;	/* verified */
	char err[256];			/* the first failure */
};

/* Region and local memory, registered with @ue. 0 or -errno. */
int load_init(struct load *l, struct mrue *ue, uint64_t seed,
	      uint32_t count, uint32_t size, uint32_t side, uint32_t depth);
void load_fini(struct load *l);
/* Size of a side's region for @count and @size. */
size_t load_region_len(uint32_t count, uint32_t size);

/*
 * Post the receive WQEs for the peer's first messages: before the peer
 * may send (the endpoint need not be connected yet), so that its first
 * SENDs find them instead of an RNR NACK.
 */
int load_post_recvs(struct load *l);
/* Post and poll what can be; -1 once something failed (l->err). */
int load_step(struct load *l);
/* Own messages completed and the peer's all received, all verified. */
int load_done(const struct load *l);
/*
 * Once the peer is done as well: its WRITEs and atomics in the region.
 * 0 or -1 (l->err).
 */
int load_final_check(struct load *l);

#endif /* MR_UE_LOAD_H */
