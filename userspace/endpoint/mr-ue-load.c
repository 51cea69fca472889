// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The verified workload of mr-ue and test_endpoint (mr-ue-load.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mr-ue-load.h"

/* Message i of a side has opcode load_ops[i % LOAD_CYCLE]. */
static const enum mrue_wr_opcode load_ops[] = {
	MRUE_WR_SEND, MRUE_WR_SEND_IMM, MRUE_WR_WRITE, MRUE_WR_WRITE_IMM,
	MRUE_WR_READ, MRUE_WR_FETCH_ADD, MRUE_WR_CMP_SWAP,
};
#define LOAD_CYCLE	7
/* Of a cycle: messages that consume a receive WQE, write, read. */
#define LOAD_RECVS	3	/* SEND, SEND_IMM, WRITE_IMM */
#define LOAD_WRITES	2	/* WRITE, WRITE_IMM */

/* Tags that separate the seed's streams. */
enum { T_LEN = 1, T_DATA, T_IMM, T_READ, T_FA, T_CS, T_ADD, T_SWAP };

static uint64_t mix(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ULL;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
	return x ^ (x >> 31);
}

static uint64_t h4(uint64_t seed, uint32_t tag, uint32_t side, uint64_t i)
{
	return mix(mix(seed ^ ((uint64_t)tag << 56) ^ ((uint64_t)side << 48)) ^
		   i);
}

static enum mrue_wr_opcode op_of(uint32_t i)
{
	return load_ops[i % LOAD_CYCLE];
}

static bool is_atomic(enum mrue_wr_opcode op)
{
	return op == MRUE_WR_FETCH_ADD || op == MRUE_WR_CMP_SWAP;
}

/* Message i of @side: 0..size bytes (1 in 64 empty); atomics 8. */
static uint32_t len_of(const struct load *l, uint32_t side, uint32_t i)
{
	uint64_t r = h4(l->seed, T_LEN, side, i);

	if (is_atomic(op_of(i)))
		return 8;
	if ((r & 63) == 0)
		return 0;
	return (uint32_t)((r >> 6) % (l->size + 1ULL));
}

/* Bytes [off, off + n) of the stream (tag, side, i). */
static void fill(const struct load *l, uint32_t tag, uint32_t side,
		 uint64_t i, uint32_t off, uint8_t *out, uint32_t n)
{
	uint64_t w = 0;
	uint32_t k, o;

	for (k = 0; k < n; k++) {
		o = off + k;
		if (k == 0 || (o & 7) == 0)
			w = h4(l->seed, tag, side, ((uint64_t)i << 32) | (o >> 3));
		out[k] = (uint8_t)(w >> ((o & 7) * 8));
	}
}

/*
 * The first byte of @buf that is not byte [0, n) of the stream (tag,
 * side, i); n if it holds them all.
 */
static uint32_t diff_at(const struct load *l, uint32_t tag, uint32_t side,
			uint64_t i, const uint8_t *buf, uint32_t n)
{
	uint8_t tmp[256];
	uint32_t off, k, d;

	for (off = 0; off < n; off += k) {
		k = n - off < sizeof(tmp) ? n - off : (uint32_t)sizeof(tmp);
		fill(l, tag, side, i, off, tmp, k);
		for (d = 0; d < k; d++)
			if (buf[off + d] != tmp[d])
				return off + d;
	}
	return n;
}

static int fail(struct load *l, const char *fmt, ...)
{
	va_list ap;

	if (!l->err[0]) {
		va_start(ap, fmt);
		vsnprintf(l->err, sizeof(l->err), fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* ---- layout ---------------------------------------------------------------- */

static uint32_t n_of(uint32_t count, uint32_t pos)
{
	return count / LOAD_CYCLE + (count % LOAD_CYCLE > pos);
}

static uint32_t n_writes(uint32_t count)
{
	return n_of(count, 2) + n_of(count, 3);
}

static uint32_t n_reads(uint32_t count)
{
	return n_of(count, 4);
}

static size_t slot_len(uint32_t size)
{
	return ((size_t)size + 7) & ~(size_t)7;
}

size_t load_region_len(uint32_t count, uint32_t size)
{
	return (n_writes(count) + n_reads(count)) * slot_len(size) + 16;
}

/* Write slot of message i (a WRITE or WRITE_IMM). */
static uint64_t write_off(const struct load *l, uint32_t i)
{
	uint64_t w = (uint64_t)(i / LOAD_CYCLE) * LOAD_WRITES +
		     (i % LOAD_CYCLE == 3);

	return w * slot_len(l->size);
}

static uint64_t read_off(const struct load *l, uint32_t i)
{
	return (n_writes(l->count) + (uint64_t)(i / LOAD_CYCLE)) *
	       slot_len(l->size);
}

static uint64_t atomic_off(const struct load *l, int cs)
{
	return (n_writes(l->count) + (uint64_t)n_reads(l->count)) *
	       slot_len(l->size) + (cs ? 8 : 0);
}

/* The j-th receive-consuming message of a side is message ... */
static uint32_t recv_msg(uint32_t j)
{
	static const uint32_t pos[LOAD_RECVS] = { 0, 1, 3 };

	return j / LOAD_RECVS * LOAD_CYCLE + pos[j % LOAD_RECVS];
}

static uint8_t *send_slot(const struct load *l, uint32_t i)
{
	return l->local + (size_t)(i % l->depth) * slot_len(l->size);
}

static uint8_t *recv_slot(const struct load *l, uint32_t j)
{
	return l->local + (size_t)(l->depth + j % l->depth) *
	       slot_len(l->size);
}

/* The operands of atomic i and the word it finds; advances the word. */
static void atomic_next(const struct load *l, uint32_t side, uint32_t i,
			uint64_t *fa, uint64_t *cs, uint64_t *add,
			uint64_t *cmp, uint64_t *swap, uint64_t *orig)
{
	if (op_of(i) == MRUE_WR_FETCH_ADD) {
		*add = h4(l->seed, T_ADD, side, i) >> 20;
		*orig = *fa;
		*fa += *add;
		return;
	}
	/* Matches every other time: both outcomes are exercised. */
	*cmp = *cs + ((i / LOAD_CYCLE) & 1);
	*swap = h4(l->seed, T_SWAP, side, i);
	*orig = *cs;
	if (*cmp == *cs)
		*cs = *swap;
}

static uint64_t fa_init(const struct load *l, uint32_t owner)
{
	return h4(l->seed, T_FA, owner, 0);
}

static uint64_t cs_init(const struct load *l, uint32_t owner)
{
	return h4(l->seed, T_CS, owner, 0);
}

int load_init(struct load *l, const struct load_backend *be, void *ctx,
	      uint64_t seed, uint32_t count, uint32_t size, uint32_t side,
	      uint32_t depth)
{
	uint32_t r, i;
	int err;

	memset(l, 0, sizeof(*l));
	l->be = be;
	l->ctx = ctx;
	l->seed = seed;
	l->count = count;
	l->size = size;
	l->side = side;
	l->depth = depth;
	l->region_len = load_region_len(count, size);
	l->local_len = 2 * depth * slot_len(size) + 8;
	l->region = aligned_alloc(64, (l->region_len + 63) & ~(size_t)63);
	l->local = aligned_alloc(64, (l->local_len + 63) & ~(size_t)63);
	l->want_orig = calloc(depth, sizeof(*l->want_orig));
	if (!l->region || !l->local || !l->want_orig)
		return -ENOMEM;
	memset(l->region, 0xA5, l->region_len);
	memset(l->local, 0x5A, l->local_len);
	for (r = 0; r < n_reads(count); r++) {
		i = r * LOAD_CYCLE + 4;
		fill(l, T_READ, side, i, 0, l->region + read_off(l, i),
		     size);
	}
	*(uint64_t *)(l->region + atomic_off(l, 0)) = fa_init(l, side);
	*(uint64_t *)(l->region + atomic_off(l, 1)) = cs_init(l, side);
	l->fa_word = fa_init(l, 1 - side);
	l->cs_word = cs_init(l, 1 - side);
	l->recv_expected = n_of(count, 0) + n_of(count, 1) + n_of(count, 3);
	err = be->reg_mr(ctx, l->region, l->region_len,
			 MRUE_ACCESS_REMOTE_WRITE | MRUE_ACCESS_REMOTE_READ |
			 MRUE_ACCESS_REMOTE_ATOMIC, &l->region_key);
	if (!err)
		err = be->reg_mr(ctx, l->local, l->local_len, 0,
				 &l->local_key);
	return err;
}

void load_fini(struct load *l)
{
	free(l->region);
	free(l->local);
	free(l->want_orig);
	memset(l, 0, sizeof(*l));
}

/* ---- posting ---------------------------------------------------------------- */

static int post_one(struct load *l)
{
	uint32_t i = l->posted, len = len_of(l, l->side, i);
	enum mrue_wr_opcode op = op_of(i);
	struct mrue_send_wr wr = {
		.wr_id = i, .opcode = op, .local = send_slot(l, i),
		.length = len, .lkey = l->local_key, .rkey = l->peer.rkey,
	};
	uint64_t fa = l->fa_word, cs = l->cs_word, orig = 0;
	int rc;

	switch (op) {
	case MRUE_WR_SEND_IMM:
	case MRUE_WR_WRITE_IMM:
		wr.imm = (uint32_t)h4(l->seed, T_IMM, l->side, i);
		break;
	default:
		break;
	}
	if (op == MRUE_WR_WRITE || op == MRUE_WR_WRITE_IMM)
		wr.remote_addr = l->peer.va + write_off(l, i);
	else if (op == MRUE_WR_READ)
		wr.remote_addr = l->peer.va + read_off(l, i);
	else if (is_atomic(op))
		wr.remote_addr = l->peer.va + atomic_off(l, op ==
							 MRUE_WR_CMP_SWAP);
	if (is_atomic(op))
		atomic_next(l, l->side, i, &fa, &cs, &wr.compare_add,
			    &wr.compare_add, &wr.swap, &orig);
	if (op == MRUE_WR_READ || is_atomic(op))
		memset(wr.local, 0xEE, len);
	else
		fill(l, T_DATA, l->side, i, 0, wr.local, len);
	rc = l->be->post_send(l->ctx, &wr);
	if (rc == -EAGAIN)
		return 0;
	if (rc)
		return fail(l, "post_send %u: %d", i, rc);
	l->fa_word = fa;
	l->cs_word = cs;
	l->want_orig[i % l->depth] = orig;
	l->posted++;
	return 1;
}

int load_post_recvs(struct load *l)
{
	int rc;

	while (l->recv_posted < l->recv_expected &&
	       l->recv_posted - l->recv_done < l->depth) {
		/*
		 * Poisoned before it is posted: from then on the buffer is
		 * the device's, a kernel one may fill it at once.
		 */
		memset(recv_slot(l, l->recv_posted), 0x77, l->size);
		rc = l->be->post_recv(l->ctx, l->recv_posted,
				      recv_slot(l, l->recv_posted),
				      (uint32_t)l->size, l->local_key);
		if (rc == -EAGAIN)
			return 0;
		if (rc)
			return fail(l, "post_recv: %d", rc);
		l->recv_posted++;
	}
	return 0;
}

/* ---- completions ---------------------------------------------------------- */

static const uint8_t want_wc_op[] = {
	[MRUE_WR_SEND] = MRUE_WC_SEND, [MRUE_WR_SEND_IMM] = MRUE_WC_SEND,
	[MRUE_WR_WRITE] = MRUE_WC_RDMA_WRITE,
	[MRUE_WR_WRITE_IMM] = MRUE_WC_RDMA_WRITE,
	[MRUE_WR_READ] = MRUE_WC_RDMA_READ,
	[MRUE_WR_FETCH_ADD] = MRUE_WC_FETCH_ADD,
	[MRUE_WR_CMP_SWAP] = MRUE_WC_CMP_SWAP,
};

/* Own message i completed: in order, with its result. */
static int send_done(struct load *l, const struct mrue_wc *wc)
{
	uint32_t i = l->completed, len = len_of(l, l->side, i), at;
	enum mrue_wr_opcode op = op_of(i);
	uint64_t got;
	uint8_t *buf;

	if (wc->status != MRUE_WC_SUCCESS)
		return fail(l, "send %u (op %d) failed: %s", i, op,
			    l->be->status_str(wc->status));
	if (wc->wr_id != i || wc->opcode != want_wc_op[op] ||
	    wc->byte_len != len)
		return fail(l, "send %u: wr_id %llu opcode %u byte_len %u", i,
			    (unsigned long long)wc->wr_id, wc->opcode,
			    wc->byte_len);
	if (op == MRUE_WR_READ) {
		buf = send_slot(l, i);
		at = diff_at(l, T_READ, 1 - l->side, i, buf, len);
		if (at < len)
			return fail(l, "READ %u: data differs from byte %u of "
				    "%u (%#x)", i, at, len, buf[at]);
		l->verified[op]++;
	} else if (is_atomic(op)) {
		memcpy(&got, send_slot(l, i), sizeof(got));
		if (got != l->want_orig[i % l->depth])
			return fail(l, "atomic %u: original %#llx, want %#llx",
				    i, (unsigned long long)got,
				    (unsigned long long)
				    l->want_orig[i % l->depth]);
		l->verified[op]++;
	}
	l->completed++;
	return 0;
}

/* The j-th receive: the peer's j-th SEND, SEND_IMM or WRITE_IMM. */
static int recv_done(struct load *l, const struct mrue_wc *wc)
{
	uint32_t j = l->recv_done, peer = 1 - l->side, i = recv_msg(j);
	uint32_t len = len_of(l, peer, i), at;
	enum mrue_wr_opcode op = op_of(i);
	bool imm = op != MRUE_WR_SEND;
	uint8_t *buf;

	if (wc->status != MRUE_WC_SUCCESS)
		return fail(l, "recv %u failed: %s", j,
			    l->be->status_str(wc->status));
	if (wc->wr_id != j || wc->byte_len != len || wc->with_imm != imm ||
	    wc->opcode != (op == MRUE_WR_WRITE_IMM ?
			   MRUE_WC_RECV_RDMA_WITH_IMM : MRUE_WC_RECV) ||
	    (imm && wc->imm != (uint32_t)h4(l->seed, T_IMM, peer, i)))
		return fail(l, "recv %u (msg %u): wr_id %llu len %u opcode %u "
			    "imm %#x", j, i, (unsigned long long)wc->wr_id,
			    wc->byte_len, wc->opcode, wc->imm);
	/* Its data was placed before its completion (MR-PLACE-2). */
	buf = op == MRUE_WR_WRITE_IMM ? l->region + write_off(l, i) :
					recv_slot(l, j);
	at = diff_at(l, T_DATA, peer, i, buf, len);
	if (at < len)
		return fail(l, "recv %u (msg %u, op %d): data differs from "
			    "byte %u of %u (%#x)", j, i, op, at, len, buf[at]);
	l->verified[op]++;
	l->recv_done++;
	return 0;
}

int load_step(struct load *l)
{
	struct mrue_wc wc[32];
	int n, k, rc;

	if (l->err[0])
		return -1;
	do {
		n = l->be->poll_cq(l->ctx, wc, 32);
		if (n < 0)
			return fail(l, "poll_cq: %d", n);
		for (k = 0; k < n; k++) {
			if (wc[k].opcode == MRUE_WC_RECV ||
			    wc[k].opcode == MRUE_WC_RECV_RDMA_WITH_IMM)
				rc = recv_done(l, &wc[k]);
			else
				rc = send_done(l, &wc[k]);
			if (rc)
				return -1;
		}
	} while (n);
	if (load_post_recvs(l))
		return -1;
	while (l->posted < l->count && l->posted - l->completed < l->depth) {
		rc = post_one(l);
		if (rc < 0)
			return -1;
		if (!rc)
			break;
	}
	return 0;
}

int load_done(const struct load *l)
{
	return !l->err[0] && l->completed == l->count &&
	       l->recv_done == l->recv_expected;
}

int load_final_check(struct load *l)
{
	uint32_t peer = 1 - l->side, i, len, at;
	uint64_t fa = fa_init(l, l->side), cs = cs_init(l, l->side);
	uint8_t *buf;
	uint64_t a, b, c, d, got;

	for (i = 0; i < l->count; i++) {
		enum mrue_wr_opcode op = op_of(i);

		if (op == MRUE_WR_WRITE) {
			buf = l->region + write_off(l, i);
			len = len_of(l, peer, i);
			at = diff_at(l, T_DATA, peer, i, buf, len);
			if (at < len)
				return fail(l, "WRITE %u of the peer: data "
					    "differs from byte %u of %u (%#x)",
					    i, at, len, buf[at]);
			l->verified[op]++;
		}
		if (is_atomic(op))
			atomic_next(l, peer, i, &fa, &cs, &a, &b, &c, &d);
	}
	memcpy(&got, l->region + atomic_off(l, 0), 8);
	if (got != fa)
		return fail(l, "FETCH_ADD word %#llx, want %#llx",
			    (unsigned long long)got, (unsigned long long)fa);
	memcpy(&got, l->region + atomic_off(l, 1), 8);
	if (got != cs)
		return fail(l, "CMP_SWAP word %#llx, want %#llx",
			    (unsigned long long)got, (unsigned long long)cs);
	return 0;
}

bool load_all_verified(const struct load *l)
{
	int op;

	for (op = 0; op < MRUE_WR_N; op++)
		if (!l->verified[op])
			return false;
	return true;
}

void load_verified_str(const struct load *l, char *buf, size_t len)
{
	static const char *const name[MRUE_WR_N] = {
		[MRUE_WR_SEND] = "send", [MRUE_WR_SEND_IMM] = "send_imm",
		[MRUE_WR_WRITE] = "write", [MRUE_WR_WRITE_IMM] = "write_imm",
		[MRUE_WR_READ] = "read", [MRUE_WR_FETCH_ADD] = "fetch_add",
		[MRUE_WR_CMP_SWAP] = "cmp_swap",
	};
	size_t off = 0;
	int op, k;

	buf[0] = 0;
	for (op = 0; op < MRUE_WR_N && off < len; op++) {
		k = snprintf(buf + off, len - off, "%s%s=%llu", op ? " " : "",
			     name[op], (unsigned long long)l->verified[op]);
		if (k < 0)
			break;
		off += (size_t)k;
	}
}
