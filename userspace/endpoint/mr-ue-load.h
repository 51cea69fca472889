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
 * The workload reaches its queue pair through a struct load_backend:
 * libmrue (load_mrue_backend, mr-ue-mrue.c) or libibverbs (mr-ue-verbs.c),
 * so the same checks run whichever implementation is on either end. Work
 * requests and completions are described with mrue.h's types.
 *
 * Region of each side (the peer's target), for count and size:
 *   [write area: one slot of size bytes per WRITE/WRITE_IMM message]
 *   [read area: one slot per READ message, filled from the seed]
 *   [two 64-bit words: the FETCH_ADD and the CMP_SWAP target]
 */
#ifndef MR_UE_LOAD_H
#define MR_UE_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mrue.h"

struct load_remote {
	uint64_t va;
	uint32_t rkey;
	uint64_t len;
};

/*
 * One queue pair as the workload drives it; @ctx is the backend's. Every
 * call returns at once.
 */
struct load_backend {
	/* Register [addr, addr + len) with enum mrue_access bits. 0 or -errno. */
	int (*reg_mr)(void *ctx, void *addr, size_t len, uint32_t access,
		      uint32_t *key);
	/* 0, -EAGAIN (no room now: poll first) or -errno. */
	int (*post_send)(void *ctx, const struct mrue_send_wr *wr);
	int (*post_recv)(void *ctx, uint64_t wr_id, void *buf, uint32_t len,
			 uint32_t lkey);
	/*
	 * Up to @n completions, oldest first. status 0 is success, any
	 * other value is the backend's own, named by status_str(); a failed
	 * receive has opcode MRUE_WC_RECV, whatever the backend reported.
	 */
	int (*poll_cq)(void *ctx, struct mrue_wc *wc, int n);
	const char *(*status_str)(uint8_t status);
};

/* libmrue: @ctx is a struct mrue (mr-ue-mrue.c). */
extern const struct load_backend load_mrue_backend;

struct load {
	const struct load_backend *be;
	void *ctx;
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
	/*
	 * Messages verified, by opcode: the peer's SEND, SEND_IMM, WRITE
	 * and WRITE_IMM (what they left here), this side's READ, FETCH_ADD
	 * and CMP_SWAP (what they brought back).
	 */
	uint64_t verified[MRUE_WR_N];
	char err[256];			/* the first failure */
};

/* Region and local memory, registered through @be. 0 or -errno. */
int load_init(struct load *l, const struct load_backend *be, void *ctx,
	      uint64_t seed,
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
/* Every opcode verified at least once (after load_final_check()). */
bool load_all_verified(const struct load *l);
/* "send=N send_imm=N write=N ... cmp_swap=N" into @buf. */
void load_verified_str(const struct load *l, char *buf, size_t len);

#endif /* MR_UE_LOAD_H */
