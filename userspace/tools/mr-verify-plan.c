// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mr-verify: the plan both sides derive from the options, the data and
 * layout of every message (a PRNG keyed by the phase and iteration), the
 * canaries and checksums.
 */
#include "mr-verify.h"

const char *const op_name[OP_COUNT] = {
	"send", "send_imm", "write", "write_imm", "read", "cas", "fadd",
};

/* ------------------------------------------------------------------ */
/* PRNG, data, checksums                                              */

static inline uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

uint64_t mix(uint64_t h, uint64_t v)
{
	uint64_t s = h ^ (v * 0xD6E8FEB86659FD93ull);

	return splitmix64(&s);
}

void gen_data(uint64_t seed, uint8_t *out, size_t len)
{
	uint64_t s = seed, v;
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		v = splitmix64(&s);
		memcpy(out + i, &v, 8);
	}
	if (i < len) {
		v = splitmix64(&s);
		memcpy(out + i, &v, len - i);
	}
}

/* Canary/poison byte at a buffer offset: position-dependent, so shifted or
 * stale data does not pass for it. */
uint8_t canary_at(size_t off)
{
	return (uint8_t)(0xC5 ^ (off * 0x9D) ^ (off >> 8));
}

void fill_canary(uint8_t *buf, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++)
		buf[i] = canary_at(i);
}

static inline uint8_t junk_at(size_t off)
{
	return (uint8_t)(0x3A + off * 0x4F);
}

void fill_junk(uint8_t *buf, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++)
		buf[i] = junk_at(i);
}

/* FNV-1a 64 over a byte stream. */
uint64_t fnv(uint64_t h, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

uint64_t fnv_layout(uint64_t h, const uint8_t *buf,
			   const struct layout *lo)
{
	for (unsigned j = 0; j < lo->n; j++)
		h = fnv(h, buf + lo->off[j], lo->dlen[j]);
	return h;
}

/* ------------------------------------------------------------------ */
/* The plan                                                           */

uint64_t phase_key(struct mrv *run, const struct phase *ph)
{
	uint64_t h = mix(run->o.seed, 0x6d722d7665726966ull);

	h = mix(h, ph->pass);
	h = mix(h, ph->dir);
	h = mix(h, ph->op);
	return mix(h, ph->size);
}

void msg_desc(struct mrv *run, const struct phase *ph, uint32_t iter, struct mdesc *d)
{
	uint64_t s = mix(phase_key(run, ph), iter), r;

	d->data_seed = splitmix64(&s);
	d->lay_seed = splitmix64(&s);
	d->imm = (uint32_t)splitmix64(&s);
	r = splitmix64(&s);
	d->misalign = r & 7;
	d->multi_r = ((r >> 3) & 3) >= 2;
	d->multi_p = ((r >> 5) & 3) >= 2;
	d->inl = (r >> 7) & 1;
	d->extra = (r >> 8) & (EXTRA_MAX - 1);
	d->recv_buf = (r >> 14) & 1;
	d->wsel = (r >> 16) & 0xffff;
	d->cas_hit = ((r >> 32) & 3) != 0;
	d->a = splitmix64(&s);
	d->b = splitmix64(&s);
}

static uint32_t phase_iters(struct mrv *run, uint32_t op, uint64_t size)
{
	uint64_t n = run->o.iters, cap;

	if (op_atomic(op))
		return run->o.iters;
	cap = run->o.phase_bytes / (size ? size : 1);
	if (cap < 1)
		cap = 1;
	return (uint32_t)(n < cap ? n : cap);
}

/* The next phase after *ph (ph->op == OP_COUNT: the first). */
bool next_phase(struct mrv *run, struct phase *ph)
{
	bool first = ph->op == OP_COUNT;

	for (;;) {
		if (first) {
			*ph = (struct phase){ .op = 0 };
			first = false;
		} else if (!op_atomic(ph->op) &&
			   ph->size_idx + 1 < (uint32_t)run->s.nsizes) {
			ph->size_idx++;
		} else if (ph->op + 1 < OP_COUNT) {
			ph->op++;
			ph->size_idx = 0;
		} else if (ph->dir == 0) {
			ph->dir = 1;
			ph->op = 0;
			ph->size_idx = 0;
		} else {
			if (!run->o.time_s)
				return false;
			ph->pass++;
			ph->dir = 0;
			ph->op = 0;
			ph->size_idx = 0;
		}
		if (!(run->s.ops & (1u << ph->op)))
			continue;
		if (op_atomic(ph->op) && ph->size_idx)
			continue;
		ph->size = op_atomic(ph->op) ? 8 : run->s.sizes[ph->size_idx];
		ph->iters = phase_iters(run, ph->op, ph->size);
		return true;
	}
}

size_t stride_of(uint64_t size)
{
	size_t s = 2 * CANARY + 8 + size + (MAX_SGE - 1) * GAP_MAX + EXTRA_MAX;

	return (s + 63) & ~(size_t)63;
}

uint32_t round_width(struct mrv *run, const struct phase *ph, uint32_t left)
{
	uint32_t w = QDEPTH * run->o.nqp;

	if (!op_atomic(ph->op)) {
		size_t per = run->s.bufsize / stride_of(ph->size);

		if (per < w)
			w = (uint32_t)per;
	}
	return left < w ? left : w;
}

void make_layout(struct layout *lo, size_t slot, size_t stride,
			size_t len, unsigned nsge, unsigned extra,
			uint64_t seed)
{
	uint64_t s = seed;
	size_t cut[MAX_SGE + 1], pos;
	unsigned k, n;

	lo->start = slot;
	lo->end = slot + stride;
	pos = slot + CANARY + (splitmix64(&s) & 7);
	lo->n = 0;
	if (len == 0 && extra == 0)
		return;
	if (nsge > MAX_SGE)
		nsge = MAX_SGE;
	if (nsge < 1)
		nsge = 1;
	if (len < nsge)
		nsge = len ? (unsigned)len : 1;
	cut[0] = 0;
	for (k = 1; k < nsge; k++)
		cut[k] = 1 + splitmix64(&s) % (len - 1);
	cut[nsge] = len;
	/* sort the inner cuts, drop duplicates */
	for (unsigned a = 1; a < nsge; a++)
		for (unsigned b = a + 1; b < nsge; b++)
			if (cut[b] < cut[a]) {
				size_t t = cut[a];

				cut[a] = cut[b];
				cut[b] = t;
			}
	n = 0;
	for (k = 0; k < nsge; k++) {
		if (cut[k + 1] == cut[k] && !(k + 1 == nsge && n == 0))
			continue;
		lo->off[n] = pos;
		lo->dlen[n] = cut[k + 1] - cut[k];
		lo->len[n] = (uint32_t)lo->dlen[n];
		pos += lo->dlen[n] + (splitmix64(&s) % GAP_MAX);
		n++;
	}
	lo->n = n;
	lo->len[n - 1] += extra;
}

void contig_layout(struct layout *lo, size_t slot, size_t stride,
			  size_t len, unsigned misalign)
{
	lo->start = slot;
	lo->end = slot + stride;
	lo->n = 1;
	lo->off[0] = slot + CANARY + misalign;
	lo->dlen[0] = len;
	lo->len[0] = (uint32_t)len;
}

void copy_in(uint8_t *buf, const struct layout *lo, const uint8_t *src)
{
	size_t m = 0;

	for (unsigned j = 0; j < lo->n; j++) {
		memcpy(buf + lo->off[j], src + m, lo->dlen[j]);
		m += lo->dlen[j];
	}
}

/* Location of message byte m in a layout (buffer offset). */
size_t layout_pos(const struct layout *lo, size_t m)
{
	for (unsigned j = 0; j < lo->n; j++) {
		if (m < lo->dlen[j])
			return lo->off[j] + m;
		m -= lo->dlen[j];
	}
	return lo->start;
}
