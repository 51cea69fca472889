// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The golden packets (vectors.txt, written by mkvectors.py from the spec's
 * header diagrams) against the reference codec: each vector's bytes must
 * decode to exactly its fields, and its fields must encode to exactly its
 * bytes (MR-HDR-1..27, MR-ICRC-1..3, MR-ICRC-5, MR-ICRC-7). Two encoders
 * written apart, one from the diagrams and one for the kernel, agreeing
 * byte for byte; a vendor checks its own codec against the same file.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "mr-conform.h"

/* The decoded fields a vector may name (struct mr_pkt). */
struct vfield {
	const char *name;
	size_t off, size;
};

#define VF(n, m) { n, offsetof(struct mr_pkt, m), sizeof(((struct mr_pkt *)0)->m) }
static const struct vfield vfields[] = {
	VF("opcode", opcode), VF("flags", flags), VF("path", path),
	VF("dqpn", dqpn), VF("psn", psn), VF("sqpn", sqpn), VF("ts", ts),
	VF("dxh.msn", dxh.msn), VF("dxh.offset", dxh.offset),
	VF("dxh.msg_len", dxh.msg_len), VF("dxh.ssn", dxh.ssn),
	VF("rxh.va", rxh.va), VF("rxh.rkey", rxh.rkey), VF("imm", imm),
	VF("ieth.rkey", inv_rkey), VF("axh.va", axh.va),
	VF("axh.rkey", axh.rkey), VF("axh.swap_add", axh.swap_add),
	VF("axh.compare", axh.compare), VF("atkh.orig", atomic_orig),
	VF("deth.qkey", deth.qkey), VF("deth.src_qpn", deth.src_qpn),
	VF("akh.cum_psn", akh.cum_psn), VF("akh.msn", akh.msn),
	VF("akh.ts_echo", akh.ts_echo), VF("akh.ce_count", akh.ce_count),
	VF("akh.pkt_count", akh.pkt_count), VF("akh.credit", akh.credit),
	VF("akh.sack0", akh.sack[0]), VF("akh.sack1", akh.sack[1]),
	VF("akh.sack2", akh.sack[2]), VF("akh.sack3", akh.sack[3]),
	VF("nkh.reason", nkh.reason), VF("nkh.rnr_timer", nkh.rnr_timer),
	VF("nkh.nack_psn", nkh.nack_psn), VF("hlh.rev_major", hlh.rev_major),
	VF("hlh.rev_minor", hlh.rev_minor), VF("hlh.hflags", hlh.hflags),
	VF("hlh.caps", hlh.caps),
	VF("hlh.max_read_range", hlh.max_read_range),
};
#define N_VFIELDS (sizeof(vfields) / sizeof(vfields[0]))

static uint64_t vf_get(const struct mr_pkt *p, const struct vfield *f)
{
	const uint8_t *a = (const uint8_t *)p + f->off;

	switch (f->size) {
	case 1: return *a;
	case 2: return *(const uint16_t *)a;
	case 4: return *(const uint32_t *)a;
	default: return *(const uint64_t *)a;
	}
}

static bool vf_set(struct mr_pkt *p, const struct vfield *f, uint64_t v)
{
	uint8_t *a = (uint8_t *)p + f->off;

	if (f->size < 8 && v >> (8 * f->size))
		return false;
	switch (f->size) {
	case 1: *a = (uint8_t)v; break;
	case 2: *(uint16_t *)a = (uint16_t)v; break;
	case 4: *(uint32_t *)a = (uint32_t)v; break;
	default: *(uint64_t *)a = v; break;
	}
	return true;
}

static const struct vfield *vf_find(const char *name)
{
	for (unsigned int i = 0; i < N_VFIELDS; i++)
		if (!strcmp(vfields[i].name, name))
			return &vfields[i];
	return NULL;
}

/* Hex pairs separated by blanks or not, appended to @b; false if odd. */
static bool hex_append(const char *s, uint8_t *b, uint32_t *n, uint32_t cap)
{
	unsigned int x;

	while (*s) {
		if (*s == ' ' || *s == '\t' || *s == '\n') {
			s++;
			continue;
		}
		if (*n >= cap || sscanf(s, "%2x", &x) != 1 || !s[1])
			return false;
		b[(*n)++] = (uint8_t)x;
		s += 2;
	}
	return true;
}

struct vec {
	char name[64];
	struct mr_pkt want;		/* the fields listed, others 0 */
	uint8_t payload[RX_BUF];
	uint8_t bytes[RX_BUF];
	uint32_t n_bytes;
	bool trimmed;
	int bad;			/* a malformed line of the file */
};

static int vec_fail(const struct vec *v, const char *what)
{
	diag("vector %s: %s", v->name, what);
	return 1;
}

/* One vector against the codec: its number of failures. */
static int vec_check(struct vec *v)
{
	uint8_t out[RX_BUF];
	struct mr_pkt got;
	char msg[160];
	int err, nf = 0, len;

	if (v->bad)
		return vec_fail(v, "malformed in vectors.txt");
	err = mr_pkt_receive(v->bytes, v->n_bytes, MR_DSCP_UNKNOWN,
			     MR_TRIM_DSCP_OFF, &got);
	if (err) {
		snprintf(msg, sizeof(msg), "the codec refuses it (error %d)", err);
		return vec_fail(v, msg);
	}
	if (v->trimmed != !!(got.flags & MR_F_TRIM))
		nf += vec_fail(v, "taken as trimmed or not, unlike the vector");
	if (v->trimmed)
		v->want.payload_len = 0;
	for (unsigned int i = 0; i < N_VFIELDS; i++) {
		uint64_t a = vf_get(&got, &vfields[i]);
		uint64_t b = vf_get(&v->want, &vfields[i]);

		if (a != b) {
			snprintf(msg, sizeof(msg), "%s decodes as 0x%llx, want 0x%llx",
				 vfields[i].name, (unsigned long long)a,
				 (unsigned long long)b);
			nf += vec_fail(v, msg);
		}
	}
	if (got.payload_len != v->want.payload_len ||
	    (got.payload_len &&
	     memcmp(got.payload, v->payload, got.payload_len)))
		nf += vec_fail(v, "payload differs");
	if (v->trimmed)		/* never sent by a sender (MR-HDR-3) */
		return nf;
	v->want.payload = v->payload;
	len = mr_pkt_encode(&v->want, out, sizeof(out));
	if (len < 0 || (uint32_t)len != v->n_bytes ||
	    memcmp(out, v->bytes, v->n_bytes))
		nf += vec_fail(v, "its fields do not encode to its bytes");
	return nf;
}

/*
 * Check every vector of @path; the number of failures (a missing or empty
 * file is one: a check that cannot run fails). *@n: vectors checked.
 */
int vectors_check(const char *path, unsigned int *n)
{
	char line[512], key[64], val[400];
	struct vec *v = NULL;
	int nf = 0;
	FILE *f;

	*n = 0;
	f = fopen(path, "r");
	if (!f) {
		diag("vectors: cannot open %s", path);
		return 1;
	}
	while (fgets(line, sizeof(line), f)) {
		const struct vfield *vf;
		uint64_t x;
		char *end;

		if (line[0] == '#' || line[0] == '\n')
			continue;
		val[0] = 0;
		if (sscanf(line, "%63s %399[^\n]", key, val) < 1)
			continue;
		if (!strcmp(key, "vector")) {
			free(v);
			v = calloc(1, sizeof(*v));
			if (!v)
				break;
			snprintf(v->name, sizeof(v->name), "%s", val);
			continue;
		}
		if (!v)
			continue;
		if (!strcmp(key, "end")) {
			nf += vec_check(v);
			(*n)++;
			free(v);
			v = NULL;
		} else if (!strcmp(key, "bytes")) {
			if (!hex_append(val, v->bytes, &v->n_bytes, sizeof(v->bytes)))
				v->bad++;
		} else if (!strcmp(key, "ids")) {
			if (!ids_expand(val, NULL, NULL))
				v->bad++;
		} else if (!strcmp(key, "trimmed")) {
			v->trimmed = !strcmp(val, "1");
		} else if (!strcmp(key, "field")) {
			char fname[64], fval[300];

			if (sscanf(val, "%63s %299s", fname, fval) != 2) {
				v->bad++;
			} else if (!strcmp(fname, "payload")) {
				if (!hex_append(fval, v->payload, &v->want.payload_len,
						sizeof(v->payload)))
					v->bad++;
			} else {
				vf = vf_find(fname);
				x = strtoull(fval, &end, 0);
				if (!vf || *end || !vf_set(&v->want, vf, x))
					v->bad++;
			}
		}
	}
	fclose(f);
	if (v) {
		nf += vec_fail(v, "no end line");
		free(v);
	}
	if (!*n) {
		diag("vectors: no vector in %s", path);
		nf++;
	}
	return nf;
}
