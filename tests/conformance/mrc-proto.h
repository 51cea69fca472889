/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * mr-conform: what the tester (mr-conform) and the DUT agent
 * (agent/mr-conform-agent) share: the control protocol's limits and the
 * byte pattern the agent writes into MRs. Nothing here is MetaRoCE wire
 * format; the protocol is described in Documentation/metaroce/conformance.rst.
 */
#ifndef MRC_PROTO_H
#define MRC_PROTO_H

#include <stddef.h>
#include <stdint.h>

#define MRC_CTL_PORT	7790	/* default TCP control port of the agent */
#define MRC_LINE_MAX	1024	/* a request line, newline included */
#define MRC_MAX_MR	32	/* object ids are 0 .. MAX-1 */
#define MRC_MAX_CQ	16
#define MRC_MAX_QP	64
#define MRC_MR_MAX_LEN	(16u << 20)	/* one MR */
#define MRC_MR_TOTAL	(64u << 20)	/* all MRs of a session */
#define MRC_READ_MAX	2048	/* READMR returns at most this, in hex */
#define MRC_POLL_MAX	16	/* CQEs per POLL */
#define MRC_POLL_TMO_MAX 10000	/* ms */
#define MRC_MW_WRID	0x4d57	/* wr_id of the agent's binds (MW) */
#define MRC_CNT_MAX	128	/* counters per COUNTERS answer */

/*
 * Byte @off of the pattern @seed: every byte differs from its neighbours
 * and from the same offset under another seed, so a misplaced or stale
 * byte shows.
 */
static inline uint8_t mrc_pat(uint64_t seed, uint64_t off)
{
	uint64_t z = seed + (off >> 3) * 0x9E3779B97F4A7C15ull;

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	z ^= z >> 31;
	return (uint8_t)(z >> ((off & 7) * 8));
}

static inline void mrc_pat_fill(uint8_t *p, uint64_t seed, uint64_t off,
				size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = mrc_pat(seed, off + i);
}

/* FNV-1a 64 of @n bytes: HASH answers and what the tester expects. */
static inline uint64_t mrc_hash(const uint8_t *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

#endif /* MRC_PROTO_H */
