// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mr-hostile --insider: a peer that holds an R_Key, attacking a fresh
 * victim QP per step of its table through a real RC QP of its own.
 *
 * The insider's QP sends one request itself, the health probe (a verified
 * READ at the first PSN, MSN 0); every later request of the step is a raw
 * packet AS that QP, from the next PSN on. The victim judges request
 * timestamps against the newest one it accepted (MR-WIN-6), so the raw
 * packets are stamped with the kernel QP's own clock: its offset is
 * learned from the QP's packets on the wire (ts_off, ins_cap()). Forged
 * ACKs and NACKs that are meant to be acted on echo a timestamp of the
 * victim's requester (MR-SEC-6), captured from its requests.
 *
 * What is checked besides each step's expectation (KEEP: the victim QP
 * stays RTS and sends no fatal NACK; DIE: it ends in ERR after the fatal
 * NACK the spec names, with nack_psn the refused request's PSN and
 * cum_psn equal to it, MR-VERBS-21, MR-VERBS-24): every READ response
 * carries the MR's bytes, only bytes a READ_REQ the victim executed for
 * that READ asked for (MR-REL-8, MR-REL-32), none for a duplicate more
 * than 256 PSNs old (MR-REL-1), none of a READ before an error point
 * after its fatal NACK (MR-REL-33); atomic responses the MR's word.
 */
#include "mr-hostile.h"

/* ------------------------------------------------------------------ */
/* Insider                                                            */

enum expect { KEEP, MAY, DIE };
static const char *const expect_name[] = { "KEEP", "MAY", "DIE" };

#define MARK_MSN(k)	(0xDEAD0000u | ((k) & 0xffffu))
#define IS_MARK(m)	(((m) >> 16) == 0xDEADu)

#define KIB		1024u
#define RANGE_MAX	(64 * KIB)	/* max_read_range (MR-REL-31) */
#define RD_IVS		16		/* ranges tracked per READ */
#define OLD_PSNS	8

/* What a READ was asked for by valid READ_REQs: disjoint, sorted. */
struct rdrec {
	bool used, lost;	/* lost: more pieces than tracked */
	uint32_t msn;
	unsigned int n;
	struct { uint32_t lo, hi; } iv[RD_IVS];
};

static struct ins {
	bool active;
	uint32_t step;
	/* attacker's real QP */
	struct ibv_pd *pd;
	struct ibv_mr *amr;
	uint8_t *ab;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	/* the victim */
	union ibv_gid vgid;
	uint64_t base, len, ova, lva, sva, pseed;
	uint32_t rkey, orkey, lrkey, srkey;
	/* this step's connection */
	uint32_t aqpn, vqpn, a0, v0;
	uint32_t next_psn, next_msn, next_ssn;
	uint32_t cum;
	bool have_cum;
	double cum_t;
	uint32_t vreq, vread;
	bool have_vreq, have_vread;
	uint32_t new_rd;	/* new READ/ATOMIC messages this step */
	unsigned int mark;
	/* the insider's kernel QP: its clock learned, its cum_psn, the
	 * newest PSN of its own requests */
	bool kts_valid, have_kcum, have_kpsn;
	uint32_t kcum, kpsn;
	/* the victim's requester: newest request timestamp, lowest PSN */
	bool have_vts, have_vlo;
	uint32_t vts, vlo;
	double vts_t;
	/* forge_nack: the fatal reason sent with stale echoes */
	uint8_t forge_other;
	/* a PSN not to resend (a hole kept open on purpose) */
	bool hold;
	uint32_t hold_psn;
	/* what the capture saw from the victim this step */
	int fatal_nack;
	uint32_t fatal_psn, fatal_cum;
	uint32_t nacks[8];
	uint32_t retx;		/* valid packets resent (holes, refused requests) */
	uint64_t rresp_pkts, rresp_bytes, rresp_unknown, aresp, aresp_retx;
	uint32_t bad_reports;
	/* the request the step expects the victim to refuse */
	bool have_bad;
	uint32_t bad_psn;
	/* valid SENDs before it (all must complete, MR-VERBS-24) */
	uint32_t sends;
	/* the victim's answers on the control channel */
	uint64_t ping_seq;
	double ping_sent, max_lat;
	uint32_t cap_lag_max;	/* us: the own packets, capture to reading */
	bool ping_out, lat_reported;
	char vstate[16];
	int vserr;
	long long vpmtu;	/* the victim device's pmtu_drops, -1: none */
	/* valid packets sent, for retransmission of holes */
	struct ihist {
		bool used;
		struct mr_pkt p;
		uint8_t pl[PMTU];
	} hist[256];
	/* VA of every READ_REQ, VA, MSN and opcode of every atomic sent, by PSN */
	struct { bool used; uint32_t psn; uint64_t va; } rdva[512];
	struct { bool used; uint8_t op; uint32_t psn, msn; uint64_t va; } atva[256];
	/* READ messages sent (valid), for re-requests and replays */
	struct { uint32_t psn, msn, len; uint64_t va; } reads[64];
	unsigned int nreads;
	struct rdrec rdr[64];
	/* READs the tool does not know may be executed (F_LOOSE) */
	bool loose;
	/* PSNs replayed when older than 256 PSNs (odd range ends) */
	uint32_t old_psn[OLD_PSNS];
	unsigned int n_old;
	/* the step in progress */
	enum expect ex;
	const char *cls, *var;
} I;

static void ins_rdva_put(uint32_t psn, uint64_t va)
{
	I.rdva[psn % 512].used = true;
	I.rdva[psn % 512].psn = psn;
	I.rdva[psn % 512].va = va;
}

static bool ins_rdva_get(uint32_t psn, uint64_t *va)
{
	if (!I.rdva[psn % 512].used || I.rdva[psn % 512].psn != psn)
		return false;
	*va = I.rdva[psn % 512].va;
	return true;
}

static void ins_at_put(uint32_t psn, uint32_t msn, uint8_t op, uint64_t va)
{
	I.atva[psn % 256].used = true;
	I.atva[psn % 256].psn = psn;
	I.atva[psn % 256].msn = msn;
	I.atva[psn % 256].op = op;
	I.atva[psn % 256].va = va;
}

static bool ins_at_get(uint32_t psn, uint64_t *va)
{
	if (!I.atva[psn % 256].used || I.atva[psn % 256].psn != psn)
		return false;
	*va = I.atva[psn % 256].va;
	return true;
}

/* READ @msn was asked for [lo, hi) by a valid READ_REQ. */
static void rd_note(uint32_t msn, uint32_t lo, uint32_t hi)
{
	struct rdrec *r = &I.rdr[msn % 64];
	unsigned int i, k;

	if (!r->used || r->msn != msn) {
		memset(r, 0, sizeof(*r));
		r->used = true;
		r->msn = msn;
	}
	if (r->lost || hi <= lo)
		return;
	/* Merge with every range it touches, keep the list sorted. */
	for (i = 0; i < r->n && r->iv[i].hi < lo; i++)
		;
	for (k = i; k < r->n && r->iv[k].lo <= hi; k++) {
		if (r->iv[k].lo < lo)
			lo = r->iv[k].lo;
		if (r->iv[k].hi > hi)
			hi = r->iv[k].hi;
	}
	if (k == i && r->n == RD_IVS) {
		r->lost = true;
		return;
	}
	memmove(&r->iv[i + 1], &r->iv[k], (r->n - k) * sizeof(r->iv[0]));
	r->n = r->n - (k - i) + 1;
	r->iv[i].lo = lo;
	r->iv[i].hi = hi;
}

/* Did a valid READ_REQ of READ @msn ask for [lo, hi)? */
static bool rd_covered(uint32_t msn, uint32_t lo, uint32_t hi)
{
	const struct rdrec *r = &I.rdr[msn % 64];

	if (!r->used || r->msn != msn)
		return false;
	if (r->lost)
		return true;
	for (unsigned int i = 0; i < r->n; i++)
		if (r->iv[i].lo <= lo && hi <= r->iv[i].hi)
			return true;
	return false;
}

static bool ins_old_psn(uint32_t psn)
{
	for (unsigned int i = 0; i < I.n_old; i++)
		if (I.old_psn[i] == psn)
			return true;
	return false;
}

static void ins_bad(const char *fmt, ...)
{
	char b[512];
	va_list ap;

	/* Every one counts; the first few of a step are printed. */
	if (I.bad_reports++ >= 5) {
		violations++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(b, sizeof(b), fmt, ap);
	va_end(ap);
	violation("step %u %s%s%s: %s", I.step, I.cls, I.var ? "/" : "",
		  I.var ? I.var : "", b);
}

/* READ_RESP from the victim: exactly the pattern of the bytes it names,
 * never a byte outside the MR, never for a request that had to be dropped,
 * only bytes its READ asked for, in the order the spec gives. */
static void ins_check_rresp(const struct mr_pkt *p)
{
	uint64_t va, off;
	size_t bad;

	if (IS_MARK(p->dxh.msn)) {
		ins_bad("READ_RESP psn %#x for msn %#x: a READ_REQ that had to be dropped (bad ICRC, trimmed, truncated, malformed or beyond the window) was executed",
			p->psn, p->dxh.msn);
		return;
	}
	if (p->flags & MR_F_TRIM)
		return;
	I.rresp_pkts++;
	I.rresp_bytes += p->payload_len;
	if (I.fatal_nack && !(p->flags & MR_F_RETX) && mr_psn_before(p->psn, I.fatal_psn))
		ins_bad("READ_RESP psn %#x msn %u offset %u arrived after the fatal NACK for psn %#x: that NACK must follow the responses of every READ executed before it (MR-VERBS-24, MR-REL-33)",
			p->psn, p->dxh.msn, p->dxh.offset, I.fatal_psn);
	if (!I.loose && !rd_covered(p->dxh.msn, p->dxh.offset, p->dxh.offset + p->payload_len))
		ins_bad("READ_RESP psn %#x%s msn %u bytes %u..%u: no valid READ_REQ of that READ asked for them; a duplicate may be served only within the ranges executed for its READ (MR-REL-8, MR-REL-32), a READ_REQ of another va or R_Key is dropped (MR-REL-25)",
			p->psn, p->flags & MR_F_RETX ? " (RETX)" : "", p->dxh.msn,
			p->dxh.offset, p->dxh.offset + p->payload_len);
	if ((p->flags & MR_F_RETX) && (p->dxh.msg_len & 1) && ins_old_psn(p->psn))
		ins_bad("READ_RESP psn %#x (RETX, range end %u) answers a duplicate sent more than 256 PSNs before cum_psn: such a packet is old and gets no answer (MR-REL-1)",
			p->psn, p->dxh.msg_len);
	if (!ins_rdva_get(p->psn, &va)) {
		I.rresp_unknown++;
		return;
	}
	off = va - I.base + p->dxh.offset;
	if (va < I.base || off > I.len || p->payload_len > I.len - off) {
		ins_bad("READ_RESP psn %#x msn %u offset %u len %u: bytes %#" PRIx64 "..%#" PRIx64
			" outside the %" PRIu64 "-byte MR were sent (MR-SEC-10)",
			p->psn, p->dxh.msn, p->dxh.offset, p->payload_len, off,
			off + p->payload_len, I.len);
		return;
	}
	bad = pat_check(p->payload, I.pseed, off, p->payload_len);
	if (bad < p->payload_len)
		ins_bad("READ_RESP psn %#x msn %u offset %u len %u: byte %zu (MR offset %#" PRIx64
			") is %#x, the MR holds %#x",
			p->psn, p->dxh.msn, p->dxh.offset, p->payload_len, bad,
			off + bad, p->payload[bad], pat_byte(I.pseed, off + bad));
}

static void ins_check_aresp(const struct mr_pkt *p)
{
	uint64_t va, want;

	I.aresp++;
	if (p->flags & MR_F_RETX)
		I.aresp_retx++;
	if (IS_MARK(p->dxh.msn)) {
		ins_bad("ATOMIC_RESP psn %#x msn %#x: an atomic that had to be dropped was executed",
			p->psn, p->dxh.msn);
		return;
	}
	if (!ins_at_get(p->psn, &va) || va < I.base || va + 8 > I.base + I.len)
		return;
	want = pat_word(I.pseed, (va - I.base) / 8);
	if (p->atomic_orig != want)
		ins_bad("ATOMIC_RESP psn %#x: original value %#" PRIx64 ", the MR word at %#" PRIx64
			" holds %#" PRIx64, p->psn, (uint64_t)p->atomic_orig, va - I.base, want);
}

/* The insider's own QP on the wire: its clock and its cum_psn. */
static void ins_cap_own(const struct mr_pkt *p)
{
	uint32_t off = p->ts - (mono_us() - cap_lag_us);

	/*
	 * The module stamps a packet when it builds it and the capture a
	 * little later (this process may read it much later: cap_lag_us),
	 * so the largest offset seen is the closest (MR-WIN-6 allows the
	 * raw packets to be a little late, never early).
	 */
	if (!I.kts_valid || (int32_t)(off - ts_off) > 0) {
		ts_off = off;
		I.kts_valid = true;
	}
	if (cap_lag_us > I.cap_lag_max)
		I.cap_lag_max = cap_lag_us;
	if ((p->opcode == MR_OP_ACK || p->opcode == MR_OP_NACK) &&
	    (!I.have_kcum || mr_psn_after(p->akh.cum_psn, I.kcum))) {
		I.kcum = p->akh.cum_psn;
		I.have_kcum = true;
	}
	if ((mr_op_desc(p->opcode)->attrs & MR_OPA_REQ) &&
	    (!I.have_kpsn || mr_psn_after(p->psn, I.kpsn))) {
		I.kpsn = p->psn;
		I.have_kpsn = true;
	}
}

static void ins_cap(uint32_t src, uint32_t dst, uint16_t sport,
		    const struct mr_pkt *p, const uint8_t *raw, uint32_t len)
{
	if (!I.active || sport < MR_ENTROPY_BASE)
		return;
	if (!(p->flags & MR_F_TRIM) && mr_icrc_check(raw, len))
		return;
	if (src == N.me && dst == N.peer && p->sqpn == I.aqpn && p->dqpn == I.vqpn) {
		ins_cap_own(p);
		return;
	}
	/* Only what the victim's module sent (MR-ENC-2 source ports): the
	 * off-path attacker on the victim's host forges NACKs and responses
	 * at this very QP pair too. */
	if (src != N.peer || dst != N.me || p->sqpn != I.vqpn || p->dqpn != I.aqpn)
		return;
	switch (p->opcode) {
	case MR_OP_NACK:
		if (p->nkh.reason < 8)
			I.nacks[p->nkh.reason]++;
		/*
		 * Fatal: REMOTE_ACCESS..REMOTE_OP. RESOURCE (MR-REL-34) is
		 * not: the refused request is resent like any hole.
		 */
		if (p->nkh.reason >= MR_NACK_REMOTE_ACCESS &&
		    p->nkh.reason <= MR_NACK_REMOTE_OP && !I.fatal_nack) {
			I.fatal_nack = p->nkh.reason;
			I.fatal_psn = p->nkh.nack_psn;
			I.fatal_cum = p->akh.cum_psn;
		}
		/* fall through */
	case MR_OP_ACK:
		if (!I.have_cum || mr_psn_after(p->akh.cum_psn, I.cum)) {
			I.cum = p->akh.cum_psn;
			I.cum_t = now_s();
		}
		I.have_cum = true;
		break;
	case MR_OP_READ_RESP:
		ins_check_rresp(p);
		break;
	case MR_OP_ATOMIC_RESP:
		ins_check_aresp(p);
		break;
	default:
		if (mr_op_desc(p->opcode)->attrs & MR_OPA_REQ) {
			if (!I.have_vreq || mr_psn_after(p->psn, I.vreq))
				I.vreq = p->psn;
			I.have_vreq = true;
			if (!I.have_vlo || mr_psn_before(p->psn, I.vlo))
				I.vlo = p->psn;
			I.have_vlo = true;
			I.vts = p->ts;
			I.vts_t = now_s();
			I.have_vts = true;
			if (p->opcode == MR_OP_READ_REQ) {
				I.vread = p->psn;
				I.have_vread = true;
			}
		}
		break;
	}
}

static bool ins_ctl_line(const char *l)
{
	unsigned long long seq;
	char st[16];
	int serr = -1;

	if (sscanf(l, "PONG %llu state=%15s serr=%d", &seq, st, &serr) < 2)
		return false;
	if (I.ping_out && seq == I.ping_seq) {
		double lat = now_s() - I.ping_sent;

		if (lat > I.max_lat)
			I.max_lat = lat;
		I.ping_out = false;
	}
	snprintf(I.vstate, sizeof(I.vstate), "%s", st);
	I.vserr = serr;
	{
		const char *pm = strstr(l, " pmtu=");

		I.vpmtu = pm ? strtoll(pm + 6, NULL, 10) : -1;
	}
	return true;
}

/* Every 500 ms: is the victim's user space still answering? */
static void ins_svc(void)
{
	double t = now_s();

	if (!I.active || ctl < 0)
		return;
	if (I.ping_out) {
		if (t - I.ping_sent > O.max_lat_ms / 1000.0 && !I.lat_reported) {
			I.lat_reported = true;
			ins_bad("the victim did not answer the control channel for %.0f ms (bound %u ms): the host is not responsive",
				(t - I.ping_sent) * 1000, O.max_lat_ms);
		}
		if (t - I.ping_sent > I.max_lat)
			I.max_lat = t - I.ping_sent;
		return;
	}
	if (t - I.ping_sent >= 0.5) {
		I.ping_seq++;
		I.ping_sent = t;
		I.ping_out = true;
		ctl_send("PING %llu", (unsigned long long)I.ping_seq);
	}
}

/* Ask the victim for its QP state now and wait for the answer. */
static bool ins_ask_state(double tmo)
{
	double end = now_s() + tmo;

	while (I.ping_out && now_s() < end)
		service(0.005);
	I.ping_seq++;
	I.ping_sent = now_s();
	I.ping_out = true;
	ctl_send("PING %llu", (unsigned long long)I.ping_seq);
	while (I.ping_out && now_s() < end && !ctl_eof)
		service(0.005);
	return !I.ping_out;
}

static bool ins_dead(void)
{
	return I.fatal_nack || !strcmp(I.vstate, "ERR") || ctl_eof;
}

/* Serve the capture and the control channel for @dt seconds (service()
 * returns at the first packet, and the capture is never idle). */
static void ins_wait(double dt)
{
	for (double e = now_s() + dt; now_s() < e;)
		service(e - now_s());
}

/* Send an attack packet of this step (its PSN is not consumed). */
static void ins_tx_attack(const uint8_t *b, uint32_t n)
{
	tx_udp_sock(b, n, true, false);
}

static void ins_fill(struct mr_pkt *p)
{
	p->dqpn = I.vqpn;
	p->sqpn = I.aqpn;
	p->ts = ts_now();
	p->path = (uint8_t)rnd_below(8);
}

static void ins_retransmit(uint32_t psn)
{
	struct ihist *h = &I.hist[psn % 256];
	uint8_t b[4096];
	struct mr_pkt p;

	if (!h->used || h->p.psn != psn || (I.hold && psn == I.hold_psn))
		return;
	p = h->p;
	p.payload = h->pl;
	p.ts = ts_now();
	p.flags |= MR_F_RETX | MR_F_ACKREQ;
	I.retx++;
	tx_udp_sock(b, enc(&p, b, sizeof(b)), false, false);
}

static uint32_t ins_cum(void)
{
	return I.have_cum ? I.cum : mr_psn_add(I.a0, 1);
}

/* Room in the victim's 256-PSN window (keep 64 spare); retransmit the
 * oldest hole like a requester would. False: stuck or the QP is gone. */
static bool ins_window(uint32_t need)
{
	double t0 = now_s(), last = 0;

	for (;;) {
		uint32_t cum = ins_cum();

		if (mr_psn_dist(I.next_psn, cum) + need < 192)
			return true;
		if (ins_dead() || now_s() - t0 > 3)
			return false;
		if (now_s() - I.cum_t > 0.05 && now_s() - last > 0.05) {
			ins_retransmit(cum);
			last = now_s();
		}
		service(0.002);
	}
}

/* A valid request at the next PSN, kept for retransmission (sent unless
 * @hold: a hole the step fills later). @rsvd: bits of the reserved flag
 * byte to set (MR-VER-2: processed as if zero). */
static bool ins_tx_at_next(struct mr_pkt *p, uint8_t rsvd, bool hold)
{
	struct ihist *h;
	uint8_t b[4096];
	uint32_t n;

	if (!ins_window(1))
		return false;
	ins_fill(p);
	p->psn = I.next_psn;
	h = &I.hist[p->psn % 256];
	h->used = true;
	h->p = *p;
	if (p->payload_len)
		memcpy(h->pl, p->payload, p->payload_len);
	h->p.payload = h->pl;
	if (p->opcode == MR_OP_READ_REQ)
		ins_rdva_put(p->psn, p->rxh.va);
	else if (p->opcode == MR_OP_ATOMIC_FA || p->opcode == MR_OP_ATOMIC_CS)
		ins_at_put(p->psn, p->dxh.msn, p->opcode, p->axh.va);
	n = enc(p, b, sizeof(b));
	if (rsvd) {
		b[2] |= rsvd;
		icrc_fix(b, n);
	}
	if (hold) {
		I.hold = true;
		I.hold_psn = p->psn;
	} else {
		tx_udp_sock(b, n, false, false);
	}
	I.next_psn = mr_psn_add(I.next_psn, 1);
	return true;
}

static bool ins_tx_valid(struct mr_pkt *p, uint8_t rsvd)
{
	return ins_tx_at_next(p, rsvd, false);
}

/* Send the hole kept open by ins_tx_at_next(hold). */
static void ins_release_hold(void)
{
	if (!I.hold)
		return;
	I.hold = false;
	ins_retransmit(I.hold_psn);
}

/* WRITE (or WRITE_IMM) of the pattern to MR offset @off. */
static bool ins_write(uint64_t off, uint32_t len, bool imm, uint8_t rsvd)
{
	uint32_t npk = len ? (len - 1) / PMTU + 1 : 1;
	uint32_t msn = I.next_msn, ssn = imm ? I.next_ssn : 0;
	uint8_t pl[PMTU];

	if (!ins_window(npk))
		return false;
	I.next_msn++;
	if (imm)
		I.next_ssn++;
	for (uint32_t k = 0; k < npk; k++) {
		struct mr_pkt p = { .opcode = imm ? MR_OP_WRITE_IMM : MR_OP_WRITE };

		p.dxh.msn = msn;
		p.dxh.ssn = ssn;
		p.dxh.msg_len = len;
		p.dxh.offset = k * PMTU;
		p.payload_len = len ? (len - p.dxh.offset < PMTU ? len - p.dxh.offset : PMTU) : 0;
		pat_fill(pl, I.pseed, off + p.dxh.offset, p.payload_len);
		p.payload = pl;
		p.rxh.va = I.base + off;
		p.rxh.rkey = I.rkey;
		p.imm = rnd32();
		p.flags = req_flags(p.opcode, k == npk - 1 ? MR_F_ACKREQ : 0,
				    p.dxh.offset, p.payload_len, len);
		if (!ins_tx_valid(&p, rsvd))
			return false;
	}
	return true;
}

/* A new READ message of MR bytes [off, off + len): one READ_REQ (at most
 * max_read_range, MR-REL-31). Returns its index in I.reads, or -1. */
static int ins_read_new(uint64_t off, uint32_t len)
{
	struct mr_pkt p = { .opcode = MR_OP_READ_REQ,
			    .flags = MR_F_FIRST | MR_F_LAST | MR_F_ACKREQ };
	unsigned int r = I.nreads;

	p.dxh.msn = I.next_msn;
	p.dxh.msg_len = len;
	p.rxh.va = I.base + off;
	p.rxh.rkey = I.rkey;
	if (!ins_tx_valid(&p, 0))
		return -1;
	I.reads[r % 64].psn = p.psn;
	I.reads[r % 64].msn = p.dxh.msn;
	I.reads[r % 64].va = p.rxh.va;
	I.reads[r % 64].len = len;
	I.nreads++;
	I.next_msn++;
	I.new_rd++;
	rd_note(p.dxh.msn, 0, len);
	return (int)r;
}

/* Another READ_REQ (new PSN, the READ's MSN, va and R_Key) for bytes
 * [roff, roff + rlen) of READ @r: a split READ's further range or a
 * re-request (MR-REL-24). */
static bool ins_read_rereq(unsigned int r, uint32_t roff, uint32_t rlen)
{
	struct mr_pkt p = { .opcode = MR_OP_READ_REQ,
			    .flags = MR_F_FIRST | MR_F_LAST };

	p.dxh.msn = I.reads[r % 64].msn;
	p.dxh.offset = roff;
	p.dxh.msg_len = rlen;
	p.rxh.va = I.reads[r % 64].va;
	p.rxh.rkey = I.rkey;
	if (!ins_tx_valid(&p, 0))
		return false;
	if (rlen <= RANGE_MAX)
		rd_note(p.dxh.msn, roff, roff + rlen);
	return true;
}

/* A READ of MR bytes [off, off + len) of any length, split into READ_REQs
 * of at most max_read_range, the one at offset 0 first (MR-REL-24).
 * Returns its index in I.reads, or -1. */
static int ins_read_split(uint64_t off, uint32_t len, double end)
{
	uint32_t first = len < RANGE_MAX ? len : RANGE_MAX;
	int r = ins_read_new(off, first);

	if (r < 0)
		return -1;
	I.reads[r % 64].len = len;
	for (uint32_t o = first; o < len && now_s() < end && !ins_dead(); o += RANGE_MAX)
		if (!ins_read_rereq((unsigned int)r, o, len - o < RANGE_MAX ? len - o : RANGE_MAX))
			return -1;
	return r;
}

/* A duplicate of READ @r's first READ_REQ (its PSN, before cum_psn) naming
 * bytes [roff, roff + rlen) (MR-REL-8). */
static void ins_read_dup(unsigned int r, uint32_t roff, uint32_t rlen, uint32_t msn)
{
	struct mr_pkt p = { .opcode = MR_OP_READ_REQ,
			    .flags = MR_F_FIRST | MR_F_LAST | MR_F_RETX };
	uint8_t b[256];

	ins_fill(&p);
	p.psn = I.reads[r % 64].psn;
	p.dxh.msn = msn;
	p.dxh.offset = roff;
	p.dxh.msg_len = rlen;
	p.rxh.va = I.reads[r % 64].va;
	p.rxh.rkey = I.rkey;
	ins_tx_attack(b, enc(&p, b, sizeof(b)));
}

/* FETCH_ADD 0 of an aligned MR word: its original value must be the pattern. */
static bool ins_atomic_fa0(uint64_t off)
{
	struct mr_pkt p = { .opcode = MR_OP_ATOMIC_FA,
			    .flags = MR_F_FIRST | MR_F_LAST | MR_F_ACKREQ };

	p.dxh.msn = I.next_msn;
	p.dxh.msg_len = MR_ATOMIC_LEN;
	p.axh.va = I.base + (off & ~7ull);
	p.axh.rkey = I.rkey;
	if (!ins_tx_valid(&p, 0))
		return false;
	I.next_msn++;
	I.new_rd++;
	return true;
}

/* SEND of @len bytes (<= the victim's 1 KiB receive SGE unless @len says
 * otherwise): the content the victim checks. */
static bool ins_send(uint32_t len, bool imm)
{
	uint32_t npk = len ? (len - 1) / PMTU + 1 : 1;
	uint32_t msn = I.next_msn, ssn = I.next_ssn;
	uint8_t pl[PMTU];

	if (!ins_window(npk))
		return false;
	I.next_msn++;
	I.next_ssn++;
	for (uint32_t k = 0; k < npk; k++) {
		struct mr_pkt p = { .opcode = imm ? MR_OP_SEND_IMM : MR_OP_SEND };

		p.dxh.msn = msn;
		p.dxh.ssn = ssn;
		p.dxh.msg_len = len;
		p.dxh.offset = k * PMTU;
		p.payload_len = len ? (len - p.dxh.offset < PMTU ? len - p.dxh.offset : PMTU) : 0;
		pat_fill(pl, I.pseed ^ SEND_SEED, (uint64_t)ssn * 4096 + p.dxh.offset,
			 p.payload_len);
		p.payload = pl;
		p.imm = rnd32();
		p.flags = req_flags(p.opcode, k == npk - 1 ? MR_F_ACKREQ : 0,
				    p.dxh.offset, p.payload_len, len);
		if (!ins_tx_valid(&p, 0))
			return false;
	}
	return true;
}

/* A legitimate small request (a WRITE of the pattern), to move the
 * window along. New READs and atomics are left to the steps that count
 * them: at most 4 per step, the requester's max_rd_atomic, below the
 * victim's max_dest_rd_atomic (MR-VERBS-15). */
static bool ins_valid_small(void)
{
	uint32_t len = rnd_below(2) ? rnd_below(PMTU) + 1 : rnd_below(2 * PMTU + 1);

	return ins_write((uint64_t)rnd_below((uint32_t)((I.len - 8192) / 8)) * 8,
			 len, false, 0);
}

/* An MR offset with room for @n bytes. */
static uint64_t ins_off(uint64_t n)
{
	return n >= I.len ? 0 : (rnd64() % (I.len - n + 1)) & ~7ull;
}

static bool ins_more(double end)
{
	return now_s() < end && !ctl_eof && (I.ex == KEEP || !ins_dead());
}

/* Wait until every valid request sent has been received (holes resent). */
static void ins_drain(double tmo)
{
	double t0 = now_s(), last = 0;

	while (now_s() - t0 < tmo && !ins_dead() && ins_cum() != I.next_psn) {
		if (now_s() - I.cum_t > 0.05 && now_s() - last > 0.05) {
			ins_retransmit(ins_cum());
			last = now_s();
		}
		service(0.005);
	}
}

/* The base for malformed packets of this connection. */
static void ins_mbase(struct mbase *m)
{
	memset(m, 0, sizeof(*m));
	m->rq_dqpn = m->ak_dqpn = I.vqpn;
	m->rq_sqpn = m->ak_sqpn = I.aqpn;
	m->rq_psn = I.next_psn;
	m->ak_psn = I.have_vreq ? I.vreq : I.v0;
	m->insider = true;
	m->va = I.base + ins_off(4 * PMTU);
	m->rkey = I.rkey;
	m->mr_base = I.base;
	m->pseed = I.pseed;
}

/* Keep sending the refused request @psn (a retransmission) until the
 * victim reacts: packets at or after an error point are dropped
 * (MR-VERBS-24), the repeated NACK answers them after the error (MR-REL-28).
 * A request before it that the victim lacks is sent again too, as a
 * requester would: the NACK waits for cum_psn to reach @psn. */
static void ins_until_dead(uint32_t psn, double end)
{
	/*
	 * The fatal NACK follows the responses of the READs before the
	 * refused request (MR-VERBS-24), which the victim paces (MR-CC-19):
	 * on a slow kernel they can outlast the step. While they still
	 * arrive the wait goes on, 2 s past the latest, at most 30 s.
	 */
	double cap = now_s() + 30.0 * O.slowdown;
	uint64_t seen = I.rresp_bytes;

	while (now_s() < end && !ins_dead()) {
		ins_wait(0.1);
		if (I.rresp_bytes != seen) {
			seen = I.rresp_bytes;
			if (end < now_s() + 2.0 * O.slowdown)
				end = now_s() + 2.0 * O.slowdown;
			if (end > cap)
				end = cap;
		}
		if (ins_dead())
			break;
		if (mr_psn_before(ins_cum(), psn))
			ins_retransmit(ins_cum());
		ins_retransmit(psn);
	}
	/* ERR seen on the control channel first (the NACK lost?): ask again. */
	for (int i = 0; i < 5 && !I.fatal_nack && !ctl_eof; i++) {
		ins_retransmit(psn);
		ins_wait(0.1);
	}
}

/* ---- KEEP steps ---- */

enum { RP_RECENT, RP_OLD, RP_GAP };

/* Duplicates of READ @r's first READ_REQ for ranges of the MR after its
 * va, mostly beyond what the READ covered; even range ends. */
static void ins_read_dups(unsigned int r)
{
	uint32_t avail = (uint32_t)(I.len - (I.reads[r % 64].va - I.base));
	uint32_t off, len;

	if (rnd_below(4) == 0) {
		ins_read_dup(r, 0, avail, I.reads[r % 64].msn);
		return;
	}
	if (rnd_below(2)) {
		/* Inside the READ: served again (MR-REL-8). */
		avail = I.reads[r % 64].len;
	}
	off = rnd_below(avail / PMTU) * PMTU;
	len = 1 + rnd_below(avail - off);
	if ((off + len) & 1)
		len += off + len < avail ? 1 : -1;
	if (len)
		ins_read_dup(r, off, len, I.reads[r % 64].msn);
}

/*
 * RP_RECENT: the measured field case first - the requester's initial
 * PSN, MSN 0, the whole MR, where the READ at that PSN (the health probe)
 * covered 4 KiB: dropped (MR-REL-8) - then duplicates of this step's
 * READ_REQs, inside and beyond their READs.
 * RP_OLD: cum_psn moved 300 PSNs on first; then the same duplicates are
 * old and get no answer at all (MR-REL-1), ranges inside their READs
 * included (odd range ends mark them).
 * RP_GAP: a READ executed as [0, 16K) and, under a second PSN, [48K, 64K)
 * (MR-REL-25); duplicates of its first READ_REQ inside the gap lie outside
 * the union of its executed ranges: dropped (MR-REL-8, MR-REL-32).
 */
static void is_read_replay(int arg, double end)
{
	uint32_t target;
	int r;

	switch (arg) {
	case RP_RECENT:
		ins_read_dup(0, 0, (uint32_t)I.len, 0);
		while (ins_more(end)) {
			unsigned int k = rnd_below(I.nreads < 64 ? I.nreads : 64);

			if (I.nreads < 8 && I.new_rd < MAX_RD && rnd_below(8) == 0) {
				if (ins_read_new(ins_off(RANGE_MAX), RANGE_MAX) < 0)
					break;
				continue;
			}
			/* Only READ_REQs the victim already has: duplicates. */
			if (mr_psn_diff(I.reads[k].psn, ins_cum()) >= 0)
				k = 0;
			ins_read_dups(k);
		}
		break;
	case RP_OLD:
		if (ins_read_new(ins_off(RANGE_MAX), RANGE_MAX) < 0)
			return;
		target = mr_psn_add(I.next_psn, 300);
		while (mr_psn_before(I.next_psn, target) && !ins_dead() && !ctl_eof)
			if (!ins_write(ins_off(8), 0, false, 0))
				return;
		ins_drain(1.0);
		if (mr_psn_dist(ins_cum(), I.reads[1].psn) <= 300) {
			say("step %u read_replay/old: cum_psn did not move 300 PSNs on (%#x)", I.step,
			    ins_cum());
			return;
		}
		I.old_psn[0] = I.reads[0].psn;
		I.old_psn[1] = I.reads[1].psn;
		I.n_old = 2;
		if (end < now_s() + 0.4)
			end = now_s() + 0.4;
		ins_read_dup(0, 0, (uint32_t)I.len, 0);
		while (ins_more(end)) {
			unsigned int k = rnd_below(2);
			uint32_t rl = I.reads[k].len;

			if (rnd_below(4) == 0)
				ins_read_dups(k);
			else
				ins_read_dup(k, 0, 2 * rnd_below(rl / 2) + 1, I.reads[k].msn);
		}
		break;
	default:
		r = ins_read_new(ins_off(RANGE_MAX), 16 * KIB);
		if (r < 0 || !ins_read_rereq((unsigned int)r, 48 * KIB, 16 * KIB))
			return;
		ins_drain(1.0);
		while (ins_more(end)) {
			uint32_t off = rnd_below(2) ? 16 * KIB + rnd_below(16) * KIB :
				rnd_below(16) * KIB;
			uint32_t len = 1 + rnd_below(off < 16 * KIB ? 16 * KIB - off : 8 * KIB);

			ins_read_dup((unsigned int)r, off, len, I.reads[r].msn);
		}
		break;
	}
}

/* The whole MR as one READ asked for in 64 KiB READ_REQs from offset 0
 * (MR-REL-24, MR-REL-31), a READ of its last byte, and re-requests of
 * ranges already asked for. */
static void is_read_huge(int arg, double end)
{
	uint32_t o = RANGE_MAX;
	int r;

	(void)arg;
	r = ins_read_new(0, RANGE_MAX);
	if (r < 0 || ins_read_new(I.len - 1, 1) < 0)
		return;
	I.reads[r].len = (uint32_t)I.len;
	while (ins_more(end)) {
		if (o < I.len && rnd_below(4)) {
			if (!ins_read_rereq((unsigned int)r, o, RANGE_MAX))
				break;
			o += RANGE_MAX;
		} else {
			uint32_t ro = rnd_below(o / PMTU) * PMTU;
			uint32_t rl = 1 + rnd_below(o - ro < RANGE_MAX ? o - ro : RANGE_MAX);

			if (!ins_read_rereq((unsigned int)r, ro, rl))
				break;
		}
	}
}

/* READs of 1 MiB, split, and overlapping re-requests of at most 64 KiB. */
static void is_read_overlap(int arg, double end)
{
	(void)arg;
	while (ins_more(end)) {
		unsigned int r;
		uint32_t off, len;

		if (I.new_rd < MAX_RD && (I.nreads < 2 || rnd_below(16) == 0)) {
			if (ins_read_split(ins_off(1 << 20), 1 << 20, end) < 0)
				break;
			continue;
		}
		r = I.nreads - 1 - rnd_below(I.nreads > 2 ? 2 : 1);
		off = rnd_below((I.reads[r % 64].len + PMTU - 1) / PMTU) * PMTU;
		len = (1 + rnd_below(RANGE_MAX / PMTU)) * PMTU;
		if (off + len > I.reads[r % 64].len)
			len = I.reads[r % 64].len - off;
		if (!ins_read_rereq(r, off, len))
			break;
	}
}

static void is_malformed(int arg, double end)
{
	unsigned int k = rnd_below(MF_NUM);
	const char *name;
	struct mbase m;
	uint8_t b[4096];
	bool valid;

	(void)arg;
	while (ins_more(end)) {
		uint32_t n;

		if (k % MF_NUM == MF_FLAGS_RSVD)
			k++;
		ins_mbase(&m);
		n = malform(k++, &m, b, sizeof(b), &name, &valid);
		ins_tx_attack(b, n);
		if (k % 8 == 0 && !ins_valid_small())
			break;
	}
}

/* Requests at the next PSN with one bit flipped: READ/ATOMIC carry a marker
 * MSN, WRITE and SEND garbage, CMP_SWP the swap that would break the
 * pattern. Then the real request for that PSN. */
static void is_bad_icrc(int arg, double end)
{
	(void)arg;
	while (ins_more(end)) {
		uint8_t b[4096], pl[PMTU];
		struct mr_pkt p;
		uint32_t n, bit;
		uint8_t op = req_ops[rnd_below(8)];
		uint64_t off = ins_off(4 * PMTU);

		rand_req(&p, op, I.vqpn, I.aqpn, I.next_psn, pl);
		rnd_fill(pl, sizeof(pl));
		ins_fill(&p);
		p.psn = I.next_psn;
		p.dxh.msn = MARK_MSN(I.mark++);
		if (mr_op_desc(op)->attrs & MR_OPA_SSN)
			p.dxh.ssn = I.next_ssn;
		if (mr_op_desc(op)->attrs & MR_OPA_MULTI) {
			p.dxh.msg_len = 2 * PMTU;
			p.dxh.offset = 0;
			p.payload_len = PMTU;
			p.payload = pl;
			p.flags = req_flags(op, 0, 0, PMTU, 2 * PMTU);
		}
		if (op == MR_OP_READ_REQ) {
			p.dxh.offset = 0;
			p.dxh.msg_len = 4096;
		}
		p.rxh.va = I.base + off;
		p.rxh.rkey = I.rkey;
		p.axh.va = I.base + off;
		p.axh.rkey = I.rkey;
		p.axh.compare = pat_word(I.pseed, off / 8);
		p.axh.swap_add = ~p.axh.compare;
		p.inv_rkey = I.rkey;
		n = enc(&p, b, sizeof(b));
		do {
			bit = rnd_below(n * 8);
		} while (bit / 8 == 3 && (1u << (bit % 8)) == MR_F_TRIM);
		b[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		icrc_break(b, n);
		ins_tx_attack(b, n);
		if (!ins_valid_small())
			break;
	}
}

static void is_truncated(int arg, double end)
{
	unsigned int k = 0;

	(void)arg;
	while (ins_more(end)) {
		uint8_t b[4096], pl[PMTU];
		struct mr_pkt p;
		uint32_t n;

		rand_req(&p, req_ops[k % 8], I.vqpn, I.aqpn, I.next_psn, pl);
		ins_fill(&p);
		p.psn = I.next_psn;
		p.dxh.msn = MARK_MSN(I.mark++);
		n = enc(&p, b, sizeof(b));
		ins_tx_attack(b, k++ % n);
		if (k % 8 == 0 && !ins_valid_small())
			break;
	}
}

/* TRIM: never placed, NACK TRIMMED for a new PSN (MR-REL-16). */
static void is_trim(int arg, double end)
{
	static const uint8_t ops[] = { MR_OP_SEND, MR_OP_SEND_IMM, MR_OP_WRITE,
				       MR_OP_WRITE_IMM, MR_OP_SEND_INV };

	(void)arg;
	while (ins_more(end)) {
		uint8_t b[4096], pl[2 * PMTU];
		uint8_t op = ops[rnd_below(5)];
		struct mr_pkt p = { .opcode = op };
		uint32_t n;

		ins_fill(&p);
		p.psn = rnd_below(4) ? I.next_psn : mr_psn_add(I.next_psn, 300 + rnd_below(1000));
		p.dxh.msn = MARK_MSN(I.mark++);
		if (mr_op_desc(op)->attrs & MR_OPA_SSN)
			p.dxh.ssn = I.next_ssn;
		p.dxh.msg_len = (1 + rnd_below(4)) * PMTU;
		p.payload_len = rnd_below(2 * PMTU + 1);
		if (p.payload_len > p.dxh.msg_len)
			p.payload_len = p.dxh.msg_len;
		rnd_fill(pl, p.payload_len);
		p.payload = pl;
		p.rxh.va = I.base + ins_off(4 * PMTU);
		p.rxh.rkey = I.rkey;
		p.inv_rkey = I.rkey;
		p.flags = MR_F_FIRST | MR_F_TRIM;
		n = enc(&p, b, sizeof(b));
		rnd_fill(b + n - MR_ICRC_LEN, MR_ICRC_LEN);
		ins_tx_attack(b, n);
		if (rnd_below(3) == 0 && !ins_valid_small())
			break;
	}
}

/* PSNs beyond the window (NACK SEQ_ERR, rate-limited: MR-REL-10) and before
 * cum_psn: up to 256 PSNs duplicates (never placed, answered only from a
 * record: MR-REL-7..9), older ones old (no answer, MR-REL-1). */
static void is_psn_oow(int arg, double end)
{
	static const uint32_t ahead[] = { 256, 257, 1000, MR_PSN_HALF - 512 };
	static const uint32_t behind[] = { 1, 2, 255, 256, 1u << 22, MR_PSN_HALF };

	(void)arg;
	if (!ins_atomic_fa0(ins_off(8)))
		return;
	while (ins_more(end)) {
		uint8_t b[4096], pl[2 * PMTU];
		uint8_t op = req_ops[rnd_below(8)];
		bool fwd = rnd_below(2);
		uint32_t psn = fwd ? mr_psn_add(I.next_psn, ahead[rnd_below(4)]) :
			mr_psn_sub(ins_cum(), behind[rnd_below(6)]);
		uint64_t off = ins_off(4 * PMTU), va;
		struct mr_pkt p;

		rand_req(&p, op, I.vqpn, I.aqpn, psn, pl);
		ins_fill(&p);
		p.psn = psn;
		p.rxh.va = I.base + off;
		p.rxh.rkey = I.rkey;
		if (op == MR_OP_READ_REQ) {
			/* A random MSN: no record covers it, dropped
			 * (MR-REL-8); served, its bytes are checked at the
			 * VA its PSN had (unknown PSNs: the MR start). */
			if (!ins_rdva_get(psn, &va))
				va = I.base;
			p.rxh.va = va;
			p.dxh.offset = 0;
			p.dxh.msg_len = 1 + rnd_below(64 << 10);
			if (fwd)
				p.dxh.msn = MARK_MSN(I.mark++);
		} else if (op == MR_OP_ATOMIC_CS || op == MR_OP_ATOMIC_FA) {
			/* Would break the pattern if executed. */
			if (!ins_at_get(psn, &va))
				va = I.base + off;
			p.axh.va = va;
			p.axh.rkey = I.rkey;
			p.axh.compare = pat_word(I.pseed, (va - I.base) / 8);
			p.axh.swap_add = op == MR_OP_ATOMIC_CS ? ~p.axh.compare : 1;
			if (fwd)
				p.dxh.msn = MARK_MSN(I.mark++);
		} else if (mr_op_desc(op)->attrs & MR_OPA_MULTI) {
			p.dxh.msg_len = 2 * PMTU;
			p.dxh.offset = 0;
			p.payload_len = PMTU;
			p.payload = pl;
			p.flags = req_flags(op, 0, 0, PMTU, 2 * PMTU);
		}
		ins_tx_attack(b, enc(&p, b, sizeof(b)));
		if (rnd_below(4) == 0 && !ins_valid_small())
			break;
	}
}

/* FETCH_ADD 0; misaligned atomics (dropped); duplicates of executed
 * atomics: the exact request under its PSN is answered from the cache
 * (MR-REL-9), a CMP_SWP that would break the pattern under an executed
 * atomic's PSN is never executed. */
static void is_atomic(int arg, double end)
{
	(void)arg;
	while (ins_more(end)) {
		uint8_t b[256], pl[2 * PMTU];
		struct mr_pkt p;
		uint32_t psn;

		switch (rnd_below(4)) {
		case 0:
			if (I.new_rd < MAX_RD) {
				if (!ins_atomic_fa0(ins_off(8)))
					return;
				break;
			}
			/* fall through */
		case 1:	/* misaligned (MR-HDR-25): dropped */
			rand_req(&p, rnd_below(2) ? MR_OP_ATOMIC_CS : MR_OP_ATOMIC_FA,
				 I.vqpn, I.aqpn, I.next_psn, pl);
			ins_fill(&p);
			p.psn = I.next_psn;
			p.dxh.msn = MARK_MSN(I.mark++);
			p.axh.va = I.base + ins_off(16);
			p.axh.rkey = I.rkey;
			{
				uint32_t n = enc(&p, b, sizeof(b));
				uint32_t o = hoff(p.opcode, MR_HDR_AXH);

				b[o + 7] |= (uint8_t)(1 + rnd_below(7));
				icrc_fix(b, n);
				ins_tx_attack(b, n);
			}
			break;
		default: /* a duplicate of an executed atomic */
			psn = mr_psn_sub(ins_cum(), 1 + rnd_below(64));
			if (!I.atva[psn % 256].used || I.atva[psn % 256].psn != psn) {
				if (!ins_valid_small())
					return;
				break;
			}
			memset(&p, 0, sizeof(p));
			p.flags = MR_F_FIRST | MR_F_LAST | MR_F_RETX;
			ins_fill(&p);
			p.psn = psn;
			p.dxh.msg_len = MR_ATOMIC_LEN;
			p.axh.va = I.atva[psn % 256].va;
			p.axh.rkey = I.rkey;
			if (rnd_below(2)) {
				p.opcode = I.atva[psn % 256].op;
				p.dxh.msn = I.atva[psn % 256].msn;
			} else {
				p.opcode = MR_OP_ATOMIC_CS;
				p.dxh.msn = rnd_below(2) ? I.atva[psn % 256].msn : rnd32();
				p.axh.compare = pat_word(I.pseed, (p.axh.va - I.base) / 8);
				p.axh.swap_add = ~p.axh.compare;
			}
			ins_tx_attack(b, enc(&p, b, sizeof(b)));
			break;
		}
	}
}

static void is_write(int arg, double end)
{
	(void)arg;
	while (ins_more(end)) {
		uint8_t b[4096];
		struct mr_pkt p;
		uint32_t len;

		switch (rnd_below(5)) {
		case 0:	/* zero length, any R_Key: not validated (MR-VERBS-29) */
			memset(&p, 0, sizeof(p));
			p.opcode = MR_OP_WRITE;
			p.flags = MR_F_FIRST | MR_F_LAST;
			p.dxh.msn = I.next_msn;
			p.rxh.va = rnd64() >> 2;
			p.rxh.rkey = rnd32();
			if (!ins_tx_valid(&p, 0))
				return;
			I.next_msn++;
			break;
		case 1:	/* reserved flag bits: ignored (MR-VER-2) */
			len = 1 + rnd_below(3 * PMTU);
			if (!ins_write(ins_off(len), len, false, (uint8_t)(1u << rnd_below(8))))
				return;
			break;
		case 2: {	/* retransmissions of received packets: duplicates */
			uint32_t psn = mr_psn_sub(ins_cum(), 1 + rnd_below(32));
			struct ihist *h = &I.hist[psn % 256];

			if (h->used && h->p.psn == psn) {
				p = h->p;
				p.payload = h->pl;
				p.ts = ts_now();
				p.flags |= MR_F_RETX;
				ins_tx_attack(b, enc(&p, b, sizeof(b)));
			}
			break;
		}
		default:
			len = rnd_below(2) ? rnd_below(64 << 10) : rnd_below(3 * PMTU);
			if (!ins_write(ins_off(len), len, rnd_below(8) == 0, 0))
				return;
			break;
		}
	}
}

/*
 * WRITEs of the pattern at the next PSN not cut at any PMTU: a non-LAST
 * packet that is no power of two, a LAST packet at an offset that is no
 * multiple of 256. Dropped and counted (pmtu_drops), never placed, no answer
 * (MR-PLACE-9, MR-ENC-12); the counter must move. Then the WRITE as its
 * requester cuts it at that PSN.
 */
static void is_pmtu(int arg, double end)
{
	long long before;
	unsigned int sent = 0;

	(void)arg;
	if (!ins_ask_state(3) || I.vpmtu < 0) {
		ins_bad("the victim reports no pmtu_drops counter");
		return;
	}
	before = I.vpmtu;
	while (ins_more(end) && sent < 32) {
		uint8_t b[4096], pl[PMTU];
		struct mr_pkt p = { .opcode = MR_OP_WRITE };
		uint64_t off = ins_off(4 * PMTU);
		uint32_t n;

		ins_fill(&p);
		p.psn = I.next_psn;
		p.dxh.msn = I.next_msn;
		p.dxh.msg_len = 2 * PMTU;
		p.rxh.va = I.base + off;
		p.rxh.rkey = I.rkey;
		if (sent % 2) {
			/* the last packet of a message, at no piece's start */
			p.dxh.offset = 8 + 8 * rnd_below(31);
			p.dxh.msg_len = p.dxh.offset + PMTU;
			p.payload_len = PMTU;
		} else {
			/* FIRST, not LAST, no whole piece of any PMTU */
			p.payload_len = PMTU - 1 - rnd_below(PMTU / 2 - 1);
		}
		pat_fill(pl, I.pseed, off + p.dxh.offset, p.payload_len);
		p.payload = pl;
		p.flags = req_flags(MR_OP_WRITE, 0, p.dxh.offset, p.payload_len,
				    p.dxh.msg_len);
		n = enc(&p, b, sizeof(b));
		ins_tx_attack(b, n);
		sent++;
		if (!ins_write(ins_off(2 * PMTU), 2 * PMTU, false, 0))
			break;
	}
	ins_wait(0.2);
	if (!ins_ask_state(3))
		return;
	if (I.vpmtu <= before)
		ins_bad("%u packets not cut at the PMTU sent, the victim's pmtu_drops stayed at %lld (MR-PLACE-9)",
			sent, before);
	else
		say("pmtu: %u mis-cut packets sent, pmtu_drops %lld -> %lld",
		    sent, before, I.vpmtu);
}

static void is_send(int arg, double end)
{
	(void)arg;
	for (int n = 0; n < 48 && ins_more(end); n++)
		if (!ins_send(rnd_below(RSGE_LEN + 1), rnd_below(2)))
			return;
	while (ins_more(end))
		if (!ins_valid_small())
			return;
}

/* The victim's requester clock now, from its newest request (never ahead
 * of the real one: the capture sees a packet after it was stamped). */
static uint32_t ins_vclock(void)
{
	return I.vts + (uint32_t)((now_s() - I.vts_t) * 1e6);
}

/* An echo that is no recent timestamp of the victim's requester: 2 s and
 * more in the past or 5 s and more in its future (MR-SEC-6: ack_max_age
 * 1 s). */
static uint32_t ins_bad_echo(void)
{
	uint32_t v = ins_vclock();

	return rnd_below(2) ? v - 2000000u - rnd_below(1u << 30) :
		v + 5000000u + rnd_below(1u << 30);
}

/* A recent timestamp of the victim's requester, echoed. */
static bool ins_good_echo(uint32_t *echo)
{
	if (!I.have_vts || now_s() - I.vts_t > 0.5)
		return false;
	*echo = I.vts;
	return true;
}

/*
 * Forged acknowledgement information towards the victim's requester that
 * it must survive. With a recent echo of its clock, so that the check
 * under test is reached: ACKs beyond nxt (MR-REL-20), stale ACKs, true
 * ACKs (cum_psn at most what the insider's module acknowledged) with
 * credit 0 or 1, NACK SEQ_ERR/TRIMMED/RNR there, fatal NACKs whose
 * nack_psn is not their cum_psn (MR-REL-18). With an echo that is no
 * recent timestamp of its clock (MR-SEC-6): a fatal NACK at the
 * requester's cum_psn and ACKs of everything with random SACK bits -
 * acted on, they would fail the QP or complete WRs whose data is lost.
 * Besides: PROBEs, garbage READ_RESPs for the victim's own READ (its
 * buffer, its risk) and ATOMIC_RESPs it never asked for.
 */
static void is_forge_ack(int arg, double end)
{
	unsigned int n[10] = { 0 }, idle = 0;

	(void)arg;
	while (ins_more(end)) {
		uint8_t b[4096], pl[PMTU];
		struct mr_pkt p;
		uint32_t v = I.have_vreq ? I.vreq : I.v0, k, echo;
		unsigned int c;

		if (!I.have_kcum || !ins_good_echo(&echo)) {
			/* The victim has sent nothing lately: nothing to forge. */
			idle++;
			if (!ins_valid_small())
				break;
			continue;
		}
		k = I.kcum;
		c = rnd_below(10);
		n[c]++;
		switch (c) {
		case 0:
			rand_ack(&p, false, I.vqpn, I.aqpn, mr_psn_add(v, 1000 + rnd_below(1u << 20)), 0);
			break;
		case 1:
			rand_ack(&p, false, I.vqpn, I.aqpn, mr_psn_sub(k, 300 + rnd_below(1u << 20)), 0);
			memset(p.akh.sack, 0, sizeof(p.akh.sack));
			break;
		case 2:
			rand_ack(&p, false, I.vqpn, I.aqpn, mr_psn_sub(k, rnd_below(16)), 0);
			memset(p.akh.sack, 0, sizeof(p.akh.sack));
			p.akh.credit = rnd_below(2);
			break;
		case 3:
			rand_ack(&p, true, I.vqpn, I.aqpn, k, mr_psn_after(v, k) ? v : k);
			memset(p.akh.sack, 0, sizeof(p.akh.sack));
			p.nkh.reason = (uint8_t)(MR_NACK_TRIMMED + rnd_below(3));
			p.nkh.rnr_timer = p.nkh.reason == MR_NACK_RNR ?
				(uint8_t)rnd_below(MR_RNR_TIMER_MAX + 1) : 0;
			break;
		case 4:
			rand_ack(&p, true, I.vqpn, I.aqpn, k, v == k ? mr_psn_add(k, 1) : v);
			memset(p.akh.sack, 0, sizeof(p.akh.sack));
			p.nkh.reason = (uint8_t)(MR_NACK_REMOTE_ACCESS + rnd_below(3));
			p.nkh.rnr_timer = 0;
			break;
		case 5:
			rand_ack(&p, true, I.vqpn, I.aqpn, k, k);
			memset(p.akh.sack, 0, sizeof(p.akh.sack));
			p.nkh.reason = (uint8_t)(MR_NACK_REMOTE_ACCESS + rnd_below(3));
			p.nkh.rnr_timer = 0;
			echo = ins_bad_echo();
			break;
		case 6:
			rand_ack(&p, false, I.vqpn, I.aqpn, mr_psn_add(v, 1), 0);
			echo = ins_bad_echo();
			break;
		case 7:
			memset(&p, 0, sizeof(p));
			p.opcode = rnd_below(2) ? MR_OP_PROBE : MR_OP_PROBE_REPLY;
			p.dqpn = I.vqpn;
			p.sqpn = I.aqpn;
			p.psn = rnd32() & MR_PSN_MASK;
			p.ts = rnd32();
			break;
		case 8:	/* garbage for the victim's own READ (its buffer, its risk) */
			memset(&p, 0, sizeof(p));
			p.opcode = MR_OP_READ_RESP;
			p.dqpn = I.vqpn;
			p.sqpn = I.aqpn;
			p.psn = I.have_vread ? I.vread : v;
			p.dxh.msn = rnd_below(64);
			p.dxh.msg_len = V_READ_LEN;
			p.dxh.offset = rnd_below(V_READ_LEN / PMTU) * PMTU;
			p.payload_len = PMTU;
			rnd_fill(pl, PMTU);
			p.payload = pl;
			p.flags = req_flags(MR_OP_READ_RESP, 0, p.dxh.offset, PMTU, V_READ_LEN);
			break;
		default:
			memset(&p, 0, sizeof(p));
			p.opcode = MR_OP_ATOMIC_RESP;
			p.dqpn = I.vqpn;
			p.sqpn = I.aqpn;
			p.psn = v;
			p.flags = MR_F_FIRST | MR_F_LAST;
			p.dxh.msn = rnd_below(64);
			p.dxh.msg_len = MR_ATOMIC_LEN;
			p.atomic_orig = rnd64();
			break;
		}
		if (p.opcode == MR_OP_ACK || p.opcode == MR_OP_NACK) {
			p.akh.ts_echo = echo;
			p.ts = ts_now();
		} else if (p.opcode != MR_OP_PROBE && p.opcode != MR_OP_PROBE_REPLY) {
			p.ts = ts_now();
		}
		ins_tx_attack(b, enc(&p, b, sizeof(b)));
		if (rnd_below(8) == 0 && !ins_valid_small())
			break;
	}
	say("step %u forge_ack: beyond %u, stale %u, true+credit %u, NACK trim/seq/rnr %u, fatal nack!=cum %u, fatal stale echo %u, ACK-all stale echo %u, PROBE %u, READ_RESP %u, ATOMIC_RESP %u; idle %u",
	    I.step, n[0], n[1], n[2], n[3], n[4], n[5], n[6], n[7], n[8], n[9], idle);
}

/* Duplicates of the first READ_REQ (the probe's: MSN 0, 4 KiB) naming
 * ranges outside the MR: no record covers them, nothing is sent, never a
 * byte from outside (MR-REL-8, MR-SEC-10). */
static void is_read_oob_replay(int arg, double end)
{
	(void)arg;
	while (ins_more(end)) {
		uint32_t l = (uint32_t)I.len;

		switch (rnd_below(4)) {
		case 0:
			ins_read_dup(0, l, 4096, 0);
			break;
		case 1:
			ins_read_dup(0, 0, MR_MAX_MSG_LEN, 0);
			break;
		case 2:
			ins_read_dup(0, l - PMTU, 2 * PMTU, 0);
			break;
		default:
			ins_read_dup(0, MR_MAX_MSG_LEN - PMTU, PMTU, 0);
			break;
		}
		if (rnd_below(8) == 0 && !ins_valid_small())
			return;
	}
}

/* ---- MAY steps ---- */

/* Random mutations of its own valid packets, with a correct ICRC, made
 * harmless to the pattern: WRITE payloads rewritten to the pattern of
 * where they land, atomics made FETCH_ADD 0, addressed to this pair. */
static void is_mutate_own(int arg, double end)
{
	(void)arg;
	while (ins_more(end)) {
		uint8_t b[4096], pl[2 * PMTU];
		struct mr_pkt p, q;
		uint32_t n;
		unsigned int k = 1 + rnd_below(4);
		const struct mr_op_desc *d;

		rand_req(&p, req_ops[rnd_below(8)], I.vqpn, I.aqpn, I.next_psn, pl);
		ins_fill(&p);
		p.psn = mr_psn_add(I.next_psn, rnd_below(4));
		p.rxh.va = I.base + ins_off(4 * PMTU);
		p.rxh.rkey = I.rkey;
		p.axh.va = I.base + ins_off(8);
		p.axh.rkey = I.rkey;
		n = enc(&p, b, sizeof(b));
		while (k--)
			b[rnd_below(n - MR_ICRC_LEN)] ^= (uint8_t)(1 + rnd_below(255));
		icrc_fix(b, n);
		if (mr_pkt_decode(b, n, &q)) {
			ins_tx_attack(b, n);	/* malformed now: dropped */
			continue;
		}
		d = mr_op_desc(q.opcode);
		q.dqpn = I.vqpn;
		q.sqpn = I.aqpn;
		if (q.opcode == MR_OP_UD_SEND || q.opcode == MR_OP_UD_SEND_IMM)
			q.deth.src_qpn = q.sqpn;
		if ((d->hdrs & MR_HDR_RXH) && q.payload_len) {
			memcpy(pl, q.payload, q.payload_len);
			pat_fill(pl, I.pseed, q.rxh.va + q.dxh.offset - I.base, q.payload_len);
			q.payload = pl;
		} else if (q.payload_len) {
			memcpy(pl, q.payload, q.payload_len);
			q.payload = pl;
		}
		if (d->hdrs & MR_HDR_AXH) {
			q.opcode = MR_OP_ATOMIC_FA;
			q.axh.swap_add = 0;
			q.axh.compare = 0;
			ins_at_put(q.psn, q.dxh.msn, q.opcode, q.axh.va);
		}
		if (q.opcode == MR_OP_READ_REQ && !ins_rdva_get(q.psn, &(uint64_t){ 0 }))
			ins_rdva_put(q.psn, q.rxh.va);
		n = (uint32_t)mr_pkt_encode(&q, b, sizeof(b));
		if ((int)n < 0)
			continue;
		ins_tx_attack(b, n);
		if (rnd_below(4) == 0 && !ins_valid_small())
			return;
	}
}

/* WRITE messages of 2^31 bytes whose first packets land in the MR. */
static void is_write_2g(int arg, double end)
{
	(void)arg;
	while (ins_more(end)) {
		uint64_t start = rnd_below(2) ? 0 : I.len - 4 * PMTU;
		uint32_t msn = I.next_msn++;

		for (uint32_t k = 0; k < 4 && ins_more(end); k++) {
			struct mr_pkt p = { .opcode = MR_OP_WRITE };
			uint8_t pl[PMTU];

			p.dxh.msn = msn;
			p.dxh.msg_len = MR_MAX_MSG_LEN;
			p.dxh.offset = k * PMTU;
			p.payload_len = PMTU;
			pat_fill(pl, I.pseed, start + k * PMTU, PMTU);
			p.payload = pl;
			p.rxh.va = I.base + start;
			p.rxh.rkey = I.rkey;
			p.flags = req_flags(MR_OP_WRITE, 0, p.dxh.offset, PMTU, MR_MAX_MSG_LEN);
			if (!ins_tx_valid(&p, 0))
				return;
		}
	}
}

/* ---- DIE steps: one request the responder must refuse ---- */

/*
 * A READ before the refused request (its responses must precede the
 * fatal NACK, MR-REL-33), the request, then its retransmissions until
 * the victim reacts.
 */
static void ins_refuse(struct mr_pkt *p, double end)
{
	if (ins_read_new(ins_off(16 * KIB), 16 * KIB) < 0)
		return;
	p->dxh.msn = I.next_msn;
	if (!ins_tx_valid(p, 0))
		return;
	I.bad_psn = p->psn;
	I.have_bad = true;
	I.next_msn++;
	ins_until_dead(p->psn, end);
}

enum { RK_OTHERPD, RK_LOCAL, RK_STALE, RK_KEYFLIP, RK_INDEX, RK_RANDOM,
       RG_BEYOND_END, RG_BEFORE_START, RG_ATOMIC_END, QA_WRITE, QA_ATOMIC };

/* R_Keys and ranges the victim must refuse (REMOTE_ACCESS), operations
 * its QP's access flags do not enable (INVALID_REQ): MR-VERBS-21. */
static void is_refused(int arg, double end)
{
	struct mr_pkt p;
	uint8_t pl[PMTU];

	memset(&p, 0, sizeof(p));
	rnd_fill(pl, sizeof(pl));
	switch (arg) {
	case RK_OTHERPD:
	case RK_LOCAL:
	case RK_STALE:
	case RG_BEYOND_END:
	case RG_BEFORE_START:
	case QA_WRITE:
		p.opcode = MR_OP_WRITE;
		p.dxh.msg_len = PMTU;
		p.payload_len = PMTU;
		p.payload = pl;
		p.flags = MR_F_FIRST | MR_F_LAST | MR_F_ACKREQ;
		p.rxh.rkey = arg == RK_OTHERPD ? I.orkey : arg == RK_LOCAL ? I.lrkey :
			arg == RK_STALE ? I.srkey : I.rkey;
		p.rxh.va = arg == RK_OTHERPD ? I.ova : arg == RK_LOCAL ? I.lva :
			arg == RK_STALE ? I.sva :
			arg == RG_BEYOND_END ? I.base + I.len - PMTU / 2 :
			arg == RG_BEFORE_START ? I.base - PMTU / 2 : I.base + ins_off(PMTU);
		if (arg == QA_WRITE)
			pat_fill(pl, I.pseed, p.rxh.va - I.base, PMTU);
		break;
	case RK_KEYFLIP:
	case RK_RANDOM:
		p.opcode = MR_OP_READ_REQ;
		p.flags = MR_F_FIRST | MR_F_LAST | MR_F_ACKREQ;
		p.dxh.msg_len = 4096;
		p.rxh.va = I.base;
		p.rxh.rkey = arg == RK_KEYFLIP ? I.rkey ^ (1 + rnd_below(255)) : rnd32();
		if (p.rxh.rkey == I.rkey)
			p.rxh.rkey ^= 1;
		break;
	default:	/* RK_INDEX, RG_ATOMIC_END, QA_ATOMIC */
		p.opcode = MR_OP_ATOMIC_FA;
		p.flags = MR_F_FIRST | MR_F_LAST | MR_F_ACKREQ;
		p.dxh.msg_len = MR_ATOMIC_LEN;
		p.axh.va = arg == RG_ATOMIC_END ? I.base + I.len : I.base;
		p.axh.rkey = arg == RK_INDEX ? I.rkey + 0x100 : I.rkey;
		p.axh.swap_add = arg == QA_ATOMIC ? 0 : 1;
		break;
	}
	ins_refuse(&p, end);
}

enum { RL_WHOLE, RL_64K1, RL_2G, RL_REREQ };

/* READ_REQs longer than max_read_range: INVALID_REQ (MR-REL-31). */
static void is_read_long(int arg, double end)
{
	struct mr_pkt p = { .opcode = MR_OP_READ_REQ,
			    .flags = MR_F_FIRST | MR_F_LAST | MR_F_ACKREQ };
	int r;

	p.rxh.va = I.base;
	p.rxh.rkey = I.rkey;
	switch (arg) {
	case RL_WHOLE:	/* a new READ of the whole MR under a new PSN */
		p.dxh.msg_len = (uint32_t)I.len;
		break;
	case RL_64K1:
		p.dxh.msg_len = RANGE_MAX + 1;
		break;
	case RL_2G:
		p.dxh.msg_len = MR_MAX_MSG_LEN;
		break;
	default:	/* a further range of an executed READ */
		r = ins_read_new(ins_off(RANGE_MAX + 8), 4096);
		if (r < 0)
			return;
		ins_drain(1.0);
		p.dxh.msn = I.reads[r].msn;
		p.dxh.msg_len = RANGE_MAX + 1 + rnd_below(RANGE_MAX);
		p.rxh.va = I.reads[r].va;
		if (!ins_tx_valid(&p, 0))
			return;
		I.bad_psn = p.psn;
		I.have_bad = true;
		ins_until_dead(p.psn, end);
		return;
	}
	ins_refuse(&p, end);
}

/*
 * max_dest_rd_atomic (MR-VERBS-15): a hole at the first PSN, then
 * max_dest_rd_atomic READ and ATOMIC messages behind it (received, not
 * executed), then one more READ: invalid. The hole is filled; the earlier
 * ones execute, their responses leave before the NACK (MR-REL-33).
 */
static void is_rd_limit(int arg, double end)
{
	struct mr_pkt p = { .opcode = MR_OP_WRITE, .flags = MR_F_FIRST | MR_F_LAST };

	(void)arg;
	p.dxh.msn = I.next_msn;
	p.rxh.va = I.base;
	p.rxh.rkey = I.rkey;
	if (!ins_tx_at_next(&p, 0, true))
		return;
	I.next_msn++;
	for (int i = 0; i < MAX_DEST_RD; i++)
		if (rnd_below(4) ? ins_read_new(ins_off(4096), 1 + rnd_below(4096)) < 0 :
		    !ins_atomic_fa0(ins_off(8)))
			return;
	if (ins_read_new(ins_off(4096), 4096) < 0)
		return;
	I.bad_psn = I.reads[(I.nreads - 1) % 64].psn;
	I.have_bad = true;
	ins_wait(0.05);
	ins_release_hold();
	ins_until_dead(I.bad_psn, end);
}

enum { MB_FAR, MB_EXECUTED, MB_AHEAD, MB_READ_OTHER };

/*
 * MSNs the responder's count does not allow (MR-REL-25): 256 or more
 * ahead, or an executed message's under a new PSN (not a READ with a
 * record): invalid at arrival; 1..255 ahead: invalid when cum_psn passes
 * it (the message completes with an MSN that is not the next one). Then
 * valid WRITEs that carry the next MSN. MB_READ_OTHER: a READ_REQ of an
 * executed READ's MSN with another va - inconsistent, dropped without a
 * NACK (KEEP); the valid request at that PSN follows.
 */
static void is_msn_bad(int arg, double end)
{
	static const uint8_t ops[] = { MR_OP_WRITE, MR_OP_SEND, MR_OP_READ_REQ,
				       MR_OP_ATOMIC_FA, MR_OP_ATOMIC_CS, MR_OP_WRITE_IMM };
	uint8_t b[4096], pl[PMTU];
	uint8_t op = ops[rnd_below(6)];
	struct mr_pkt p;
	int r;

	/* Messages to be executed and remembered first. */
	for (int i = 0; i < 3; i++)
		if (!ins_valid_small())
			return;
	if ((r = ins_read_new(ins_off(8192), 4096)) < 0)
		return;
	ins_drain(1.0);
	if (arg == MB_READ_OTHER) {
		while (ins_more(end)) {
			p = (struct mr_pkt){ .opcode = MR_OP_READ_REQ,
					     .flags = MR_F_FIRST | MR_F_LAST };
			ins_fill(&p);
			p.psn = I.next_psn;
			p.dxh.msn = I.reads[r].msn;
			p.dxh.msg_len = 1 + rnd_below(4096);
			p.rxh.va = I.reads[r].va + 8 * (1 + rnd_below(64));
			p.rxh.rkey = I.rkey;
			if (rnd_below(2)) {
				p.rxh.va = I.reads[r].va;
				p.rxh.rkey = I.orkey;
			}
			/* Served at all, its bytes would not be the READ's. */
			ins_rdva_put(p.psn, I.reads[r].va);
			ins_tx_attack(b, enc(&p, b, sizeof(b)));
			if (!ins_valid_small())
				return;
		}
		return;
	}
	rand_req(&p, op, I.vqpn, I.aqpn, I.next_psn, pl);
	p.payload_len = 0;
	switch (arg) {
	case MB_FAR:
		p.dxh.msn = I.next_msn + 256 + rnd_below(rnd_below(2) ? 1000 : 1u << 30);
		break;
	case MB_EXECUTED:
		p.dxh.msn = rnd_below(4) ? I.next_msn - 1 - rnd_below(I.next_msn - 1) :
			I.next_msn + 0x80000000u;
		/* No READ has that MSN (READs are the probe, MSN 0, and the last one). */
		if (op == MR_OP_READ_REQ && (p.dxh.msn == 0 || p.dxh.msn == I.reads[r].msn))
			p.dxh.msn = I.next_msn - 2;
		break;
	default:
		p.dxh.msn = I.next_msn + 1 + rnd_below(255);
		break;
	}
	if (mr_op_desc(op)->attrs & MR_OPA_MULTI) {
		p.dxh.msg_len = rnd_below(PMTU + 1);
		p.dxh.offset = 0;
		p.payload_len = p.dxh.msg_len;
		p.payload = pl;
		p.flags = req_flags(op, MR_F_ACKREQ, 0, p.payload_len, p.dxh.msg_len);
	}
	if (op == MR_OP_READ_REQ) {
		p.dxh.offset = 0;
		p.dxh.msg_len = 1 + rnd_below(4096);
	}
	if (mr_op_desc(op)->attrs & MR_OPA_SSN)
		p.dxh.ssn = I.next_ssn;
	p.rxh.va = I.base + ins_off(PMTU);
	p.rxh.rkey = I.rkey;
	pat_fill(pl, I.pseed, p.rxh.va - I.base, p.payload_len);
	p.axh.va = I.base + ins_off(8);
	p.axh.rkey = I.rkey;
	p.axh.swap_add = 0;
	p.axh.compare = ~pat_word(I.pseed, (p.axh.va - I.base) / 8);
	p.inv_rkey = rnd32();
	if (!ins_tx_valid(&p, 0))
		return;
	I.bad_psn = p.psn;
	I.have_bad = true;
	/* Valid requests after it, from the next MSN: cum_psn passes it. */
	for (int i = 0; i < 4 && !ins_dead(); i++)
		if (!ins_valid_small())
			break;
	ins_until_dead(I.bad_psn, end);
}

/*
 * SENDs to the SRQ, pairs of them in swapped order (the second SSN under
 * the second PSN arrives first: legitimate), then, with every earlier one
 * received, a SEND whose SSN is further ahead of the oldest bound SSN
 * than its PSN is of cum_psn (MR-VERBS-20): invalid, binds nothing; the
 * earlier SENDs complete (MR-VERBS-24).
 */
static void is_ssn_ahead(int arg, double end)
{
	static const uint32_t ahead[] = { 1, 2, 63, 255, 256, 1000, 1u << 31 };
	struct mr_pkt p = { .opcode = MR_OP_SEND };
	unsigned int pairs = 1 + rnd_below(6);
	uint8_t pl[64];

	(void)arg;
	for (unsigned int i = 0; i < pairs && !ins_dead(); i++) {
		struct mr_pkt q[2];
		uint8_t qb[2][PMTU];
		uint32_t psn0;

		if (!ins_window(2))
			return;
		psn0 = I.next_psn;
		for (int k = 0; k < 2; k++) {
			uint32_t len = rnd_below(RSGE_LEN + 1), ssn = I.next_ssn + (uint32_t)k;

			memset(&q[k], 0, sizeof(q[k]));
			q[k].opcode = MR_OP_SEND;
			q[k].dxh.msn = I.next_msn + (uint32_t)k;
			q[k].dxh.ssn = ssn;
			q[k].dxh.msg_len = len;
			q[k].payload_len = len;
			pat_fill(qb[k], I.pseed ^ SEND_SEED, (uint64_t)ssn * 4096, len);
			q[k].payload = qb[k];
			q[k].flags = MR_F_FIRST | MR_F_LAST | MR_F_ACKREQ;
			ins_fill(&q[k]);
			q[k].psn = mr_psn_add(psn0, (uint32_t)k);
			I.hist[q[k].psn % 256].used = true;
			I.hist[q[k].psn % 256].p = q[k];
			memcpy(I.hist[q[k].psn % 256].pl, qb[k], len);
			I.hist[q[k].psn % 256].p.payload = I.hist[q[k].psn % 256].pl;
		}
		for (int k = 1; k >= 0; k--) {
			uint8_t b[4096];

			tx_udp_sock(b, enc(&q[k], b, sizeof(b)), false, false);
		}
		I.next_psn = mr_psn_add(psn0, 2);
		I.next_msn += 2;
		I.next_ssn += 2;
		I.sends += 2;
	}
	ins_drain(1.0);
	rnd_fill(pl, sizeof(pl));
	p.dxh.msn = I.next_msn;
	/* Ahead of the bound SSNs by more than its PSN of cum_psn: the
	 * victim's cum_psn is at least the one it acknowledged. */
	p.dxh.ssn = I.next_ssn + mr_psn_dist(I.next_psn, ins_cum()) + ahead[rnd_below(7)];
	p.dxh.msg_len = sizeof(pl);
	p.payload_len = sizeof(pl);
	p.payload = pl;
	p.flags = MR_F_FIRST | MR_F_LAST | MR_F_ACKREQ;
	if (!ins_tx_valid(&p, 0))
		return;
	I.bad_psn = p.psn;
	I.have_bad = true;
	I.next_msn++;
	ins_until_dead(p.psn, end);
}

/* A SEND longer than the receive WQE's 1 KiB SGE (MR-VERBS-21: INVALID_REQ,
 * the WQE completes with IBV_WC_LOC_LEN_ERR). */
static void is_send_long(int arg, double end)
{
	(void)arg;
	if (!ins_send(2 * PMTU, false))
		return;
	I.bad_psn = mr_psn_sub(I.next_psn, 2);
	I.have_bad = true;
	ins_until_dead(mr_psn_sub(I.next_psn, 1), end);
}

/*
 * Forged fatal NACKs at the victim's requester. The insider's QP is moved
 * to ERR first, so that nothing acknowledges the victim's requests: the
 * lowest request PSN seen after that, X, stays outstanding. First NACKs
 * with nack_psn = cum_psn = X of another fatal reason whose echo is no
 * recent timestamp of the victim's clock: to be dropped (MR-SEC-6). Then
 * the same with the echo of its newest request and the step's reason: the
 * WR at X fails with the status that reason maps to (MR-REL-18,
 * MR-VERBS-22), not the other one's. Quick: without ACKs the victim's
 * requester counts its retry budget (MR-RETRY-1).
 *
 * X moves with what the victim sends: a request captured just after the
 * ERR may already be acknowledged by an ACK the insider's module sent
 * before it (still in flight, or queued behind it), and a NACK at a PSN
 * below the victim's una is void (MR-REL-23). So each good NACK names the
 * lowest request PSN captured since the previous one (the victim resends
 * from its una), never one below what the module acknowledged.
 */
static void is_forge_nack(int arg, double end)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	uint8_t other = (uint8_t)(MR_NACK_REMOTE_ACCESS + (arg - MR_NACK_REMOTE_ACCESS + 1) % 3);
	uint8_t b[256];
	struct mr_pkt p;
	uint32_t x;
	double t;

	if (ibv_modify_qp(I.qp, &a, IBV_QP_STATE))
		die("moving the insider's QP to ERR: %s", strerror(errno));
	t = now_s();
	I.have_vlo = false;
	while (!I.have_vlo && now_s() < end)
		service(0.005);
	if (!I.have_vlo) {
		ins_bad("the victim sent no request in %.1f s: nothing to forge a NACK for", end - t);
		return;
	}
	for (int i = 0; i < 5; i++) {
		rand_ack(&p, true, I.vqpn, I.aqpn, I.vlo, I.vlo);
		p.nkh.reason = other;
		p.nkh.rnr_timer = 0;
		memset(p.akh.sack, 0, sizeof(p.akh.sack));
		p.akh.credit = MR_CREDIT_UNLIMITED;
		p.ts = ts_now();
		p.akh.ts_echo = ins_bad_echo();
		ins_tx_attack(b, enc(&p, b, sizeof(b)));
	}
	I.forge_other = other;
	x = I.vlo;
	I.have_vlo = false;
	while (now_s() < end && !ins_dead()) {
		uint32_t echo;

		if (!ins_good_echo(&echo)) {
			service(0.005);
			continue;
		}
		if (I.have_vlo)
			x = I.vlo;
		if (I.have_kcum && I.have_vreq && mr_psn_after(I.kcum, x) &&
		    mr_psn_after_eq(I.vreq, I.kcum))
			x = I.kcum;
		I.have_vlo = false;
		rand_ack(&p, true, I.vqpn, I.aqpn, x, x);
		p.nkh.reason = (uint8_t)arg;
		p.nkh.rnr_timer = 0;
		memset(p.akh.sack, 0, sizeof(p.akh.sack));
		p.akh.credit = MR_CREDIT_UNLIMITED;
		p.ts = ts_now();
		p.akh.ts_echo = echo;
		ins_tx_attack(b, enc(&p, b, sizeof(b)));
		ins_wait(0.05);
	}
}

#define F_NOCHK		1	/* the victim does not check SEND contents */
#define F_FORGE		2	/* DIE at the victim's requester: its WR status */
#define F_LOOSE		4	/* READs the tool does not know may be executed */

struct istep {
	const char *cls, *var;
	enum expect ex;
	void (*fn)(int arg, double end);
	int arg;
	int nack;		/* DIE: the fatal NACK the victim must send */
	int acc;		/* the victim QP's access flags, 0: all */
	int flags;
	const char *what;
};

#define IR	MR_NACK_INVALID_REQ
#define RA	MR_NACK_REMOTE_ACCESS
#define ACC_NO_WRITE	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)
#define ACC_NO_ATOMIC	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE)

static const struct istep isteps[] = {
	{ "read_replay", "recent", KEEP, is_read_replay, RP_RECENT, 0, 0, 0,
	  "the requester's initial PSN with MSN 0 for the whole MR first, then duplicates of its READ_REQs in and beyond their READs" },
	{ "malformed", NULL, KEEP, is_malformed, 0, 0, 0, 0,
	  "every malformation of the table at in-window PSNs" },
	{ "rkey", "other_pd", DIE, is_refused, RK_OTHERPD, RA, 0, 0,
	  "WRITE with the R_Key of an MR of another PD (MR-SEC-10)" },
	{ "read_huge", NULL, KEEP, is_read_huge, 0, 0, 0, 0,
	  "the whole MR as one READ in 64 KiB READ_REQs, its last byte, re-requests" },
	{ "bad_icrc", NULL, KEEP, is_bad_icrc, 0, 0, 0, 0,
	  "in-window requests (garbage WRITE/SEND, pattern-breaking CMP_SWP, marked READ) with a bad ICRC" },
	{ "forge_nack", "remote_access", DIE, is_forge_nack, MR_NACK_REMOTE_ACCESS, 0, 0, F_FORGE,
	  "NACK REMOTE_ACCESS for the victim's outstanding request, another reason with stale echoes first: IBV_WC_REM_ACCESS_ERR" },
	{ "psn_oow", NULL, KEEP, is_psn_oow, 0, 0, 0, 0,
	  "every request opcode beyond the window and before cum_psn" },
	{ "read_long", "whole_mr", DIE, is_read_long, RL_WHOLE, IR, 0, 0,
	  "a new READ of the whole MR in one READ_REQ (MR-REL-31)" },
	{ "rkey", "local_only", DIE, is_refused, RK_LOCAL, RA, 0, 0,
	  "WRITE to an MR without remote access" },
	{ "truncated", NULL, KEEP, is_truncated, 0, 0, 0, 0, "in-window requests cut at every length" },
	{ "read_replay", "old", KEEP, is_read_replay, RP_OLD, 0, 0, 0,
	  "duplicate READ_REQs more than 256 PSNs before cum_psn: no answer (MR-REL-1)" },
	{ "trim", NULL, KEEP, is_trim, 0, 0, 0, 0, "TRIM with garbage payload and ICRC, in and beyond the window" },
	{ "rkey", "stale", DIE, is_refused, RK_STALE, RA, 0, 0, "WRITE with the R_Key of a deregistered MR" },
	{ "forge_ack", NULL, KEEP, is_forge_ack, 0, 0, 0, 0,
	  "ACK/NACK/SACK/responses/PROBEs at the victim's requester, recent and stale echoes" },
	{ "rd_limit", NULL, DIE, is_rd_limit, 0, IR, 0, 0,
	  "one READ more than max_dest_rd_atomic received and not executed (MR-VERBS-15)" },
	{ "atomic", NULL, KEEP, is_atomic, 0, 0, 0, 0,
	  "FETCH_ADD 0, misaligned atomics, duplicates of executed atomics" },
	{ "rkey", "key_flip", DIE, is_refused, RK_KEYFLIP, RA, 0, 0, "READ with the R_Key's key bits changed (MR-SEC-1)" },
	{ "write", NULL, KEEP, is_write, 0, 0, 0, 0,
	  "WRITEs of the pattern, zero-length WRITEs with any R_Key, reserved flag bits, duplicates" },
	{ "msn_bad", "far", DIE, is_msn_bad, MB_FAR, IR, 0, F_NOCHK,
	  "a request whose MSN is 256 or more ahead (MR-REL-25)" },
	{ "send", NULL, KEEP, is_send, 0, 0, 0, 0, "SENDs checked byte for byte by the victim" },
	{ "pmtu", NULL, KEEP, is_pmtu, 0, 0, 0, 0,
	  "WRITEs not cut at the PMTU (short non-last packet, misaligned offset): pmtu_drops moves (MR-PLACE-9)" },
	{ "range", "beyond_end", DIE, is_refused, RG_BEYOND_END, RA, 0, 0, "WRITE across the end of the MR" },
	{ "read_overlap", NULL, KEEP, is_read_overlap, 0, 0, 0, 0,
	  "1 MiB READs in 64 KiB READ_REQs and overlapping re-requests" },
	{ "ssn_ahead", NULL, DIE, is_ssn_ahead, 0, IR, 0, 0,
	  "swapped SEND pairs, then a SEND whose SSN is further ahead than its PSN (MR-VERBS-20)" },
	{ "range", "before_start", DIE, is_refused, RG_BEFORE_START, RA, 0, 0, "WRITE starting before the MR" },
	{ "msn_bad", "executed", DIE, is_msn_bad, MB_EXECUTED, IR, 0, F_NOCHK,
	  "a request (no READ of a record) with an executed MSN under a new PSN (MR-REL-25)" },
	{ "read_replay", "gap", KEEP, is_read_replay, RP_GAP, 0, 0, 0,
	  "duplicates of a READ executed as two ranges, inside the gap between them (MR-REL-8)" },
	{ "rkey", "index", DIE, is_refused, RK_INDEX, RA, 0, 0, "FETCH_ADD with the next index's R_Key" },
	{ "mutate_own", NULL, MAY, is_mutate_own, 0, 0, 0, F_NOCHK | F_LOOSE,
	  "random mutations of its own packets, correct ICRC" },
	{ "read_long", "2g", DIE, is_read_long, RL_2G, IR, 0, 0, "a READ of 2^31 bytes at the MR" },
	{ "read_oob_replay", NULL, KEEP, is_read_oob_replay, 0, 0, 0, 0,
	  "duplicate READ_REQs naming ranges outside the MR" },
	{ "send_long", NULL, DIE, is_send_long, 0, IR, 0, 0, "a SEND longer than the receive WQE" },
	{ "rkey", "random", DIE, is_refused, RK_RANDOM, RA, 0, 0, "READ with a random R_Key" },
	{ "msn_bad", "read_other", KEEP, is_msn_bad, MB_READ_OTHER, 0, 0, F_NOCHK,
	  "READ_REQs of an executed READ's MSN with another va or R_Key: dropped (MR-REL-25)" },
	{ "write_2g", NULL, MAY, is_write_2g, 0, 0, 0, F_NOCHK,
	  "WRITE messages of 2^31 bytes starting in the MR" },
	{ "range", "atomic_end", DIE, is_refused, RG_ATOMIC_END, RA, 0, 0, "FETCH_ADD just past the MR" },
	{ "qp_access", "write", DIE, is_refused, QA_WRITE, IR, ACC_NO_WRITE, 0,
	  "WRITE to a QP without remote write access (MR-VERBS-21)" },
	{ "read_long", "64k_plus_1", DIE, is_read_long, RL_64K1, IR, 0, 0,
	  "a READ_REQ of max_read_range + 1 bytes" },
	{ "msn_bad", "ahead", DIE, is_msn_bad, MB_AHEAD, IR, 0, F_NOCHK,
	  "a request whose MSN is 1..255 ahead, then requests with the next MSN (MR-REL-25)" },
	{ "read_long", "rereq", DIE, is_read_long, RL_REREQ, IR, 0, 0,
	  "a further range of an executed READ longer than max_read_range" },
	{ "qp_access", "atomic", DIE, is_refused, QA_ATOMIC, IR, ACC_NO_ATOMIC, 0,
	  "FETCH_ADD to a QP without remote atomic access (MR-VERBS-21)" },
	{ "forge_nack", "invalid_req", DIE, is_forge_nack, MR_NACK_INVALID_REQ, 0, 0, F_FORGE,
	  "NACK INVALID_REQ, another reason with stale echoes first: IBV_WC_REM_INV_REQ_ERR" },
	{ "forge_nack", "remote_op", DIE, is_forge_nack, MR_NACK_REMOTE_OP, 0, 0, F_FORGE,
	  "NACK REMOTE_OP, another reason with stale echoes first: IBV_WC_REM_OP_ERR" },
};
#define N_ISTEPS ((int)MR_ARRAY_SIZE(isteps))

static int istep_cls(const char *cls)
{
	for (int i = 0; i < MAX_CLASSES; i++) {
		if (!cstat[i].name) {
			cstat[i].name = cls;
			return i;
		}
		if (!strcmp(cstat[i].name, cls))
			return i;
	}
	return 0;
}

static void ins_connect(const char *host)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *ai;
	double end = now_s() + O.connect_timeout;
	int one = 1;

	if (getaddrinfo(host, O.ctl_port, &hints, &ai))
		die("getaddrinfo(%s)", host);
	for (;;) {
		ctl = socket(AF_INET, SOCK_STREAM, 0);
		if (ctl >= 0 && !connect(ctl, ai->ai_addr, ai->ai_addrlen))
			break;
		if (ctl >= 0)
			close(ctl);
		ctl = -1;
		if (now_s() > end)
			die("could not connect to the victim at %s:%s", host, O.ctl_port);
		usleep(200000);
	}
	freeaddrinfo(ai);
	setsockopt(ctl, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

static const char *wc_name(int st)
{
	return st < 0 ? "-" : ibv_wc_status_str((enum ibv_wc_status)st);
}

static const char *const nack_name[] = { "none", "TRIMMED", "SEQ_ERR", "RNR",
					 "REMOTE_ACCESS", "INVALID_REQ", "REMOTE_OP", "?" };

/* The health probe: one verified RDMA READ of the MR's first PROBE_LEN
 * bytes, which the victim's WRITEs never target, through the real QP
 * (PSN a0, MSN 0). */
static bool ins_probe(void)
{
	struct ibv_sge sg = { .addr = (uintptr_t)I.ab, .length = PROBE_LEN, .lkey = I.amr->lkey };
	struct ibv_send_wr wr = { .wr_id = 1, .sg_list = &sg, .num_sge = 1,
				  .opcode = IBV_WR_RDMA_READ,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_wc wc;
	double end = now_s() + 10.0 * O.slowdown;
	size_t x;
	int n;

	memset(I.ab, 0, PROBE_LEN);
	wr.wr.rdma.remote_addr = I.base;
	wr.wr.rdma.rkey = I.rkey;
	ins_rdva_put(I.a0, I.base);
	I.reads[0].psn = I.a0;
	I.reads[0].msn = 0;
	I.reads[0].va = I.base;
	I.reads[0].len = PROBE_LEN;
	I.nreads = 1;
	rd_note(0, 0, PROBE_LEN);
	if (ibv_post_send(I.qp, &wr, &bad)) {
		ins_bad("health probe: ibv_post_send: %s", strerror(errno));
		return false;
	}
	while ((n = ibv_poll_cq(I.cq, 1, &wc)) == 0 && now_s() < end)
		service(0.002);
	if (n <= 0) {
		ins_bad("health probe: the victim did not serve a %u-byte READ within %u s",
			PROBE_LEN, 10 * O.slowdown);
		return false;
	}
	if (wc.status != IBV_WC_SUCCESS) {
		ins_bad("health probe: READ completed with %s", ibv_wc_status_str(wc.status));
		return false;
	}
	x = pat_check(I.ab, I.pseed, 0, PROBE_LEN);
	if (x < PROBE_LEN) {
		ins_bad("health probe: byte %zu of the READ is %#x, the MR holds %#x",
			x, I.ab[x], pat_byte(I.pseed, x));
		return false;
	}
	/*
	 * The raw packets that follow take the QP's clock (MR-WIN-6), from
	 * any packet of the QP (its ACKs of the victim's requests too) ...
	 */
	for (double e = now_s() + O.slowdown; !I.kts_valid && now_s() < e;)
		service(0.005);
	if (!I.kts_valid) {
		ins_bad("health probe: no packet of the insider's own QP captured in %u s: its clock is unknown",
			O.slowdown);
		return false;
	}
	/*
	 * ... and the PSNs after its own: a READ whose responses stalled is
	 * asked again under a new PSN (MR-REL-24), so the probe may have
	 * taken more than a0. The capture may miss a packet under load: the
	 * victim's cum_psn tells as well.
	 */
	for (double e = now_s() + O.slowdown; !I.have_cum && now_s() < e;)
		service(0.005);
	if (!I.have_kpsn || (I.have_cum && mr_psn_after(mr_psn_sub(I.cum, 1), I.kpsn))) {
		I.kpsn = I.have_cum ? mr_psn_sub(I.cum, 1) : I.a0;
		I.have_kpsn = true;
	}
	if (mr_psn_dist(I.kpsn, I.a0) >= 64) {
		ins_bad("health probe: the insider's QP sent PSN %#x, %u after its first: not its probe",
			I.kpsn, mr_psn_dist(I.kpsn, I.a0));
		return false;
	}
	for (uint32_t q = mr_psn_add(I.a0, 1); mr_psn_after_eq(I.kpsn, q); q = mr_psn_add(q, 1))
		ins_rdva_put(q, I.base);
	I.next_psn = mr_psn_add(I.kpsn, 1);
	return true;
}

/* The completion status a fatal NACK maps to (MR-VERBS-22). */
static int nack_wc(int reason)
{
	return reason == MR_NACK_REMOTE_ACCESS ? IBV_WC_REM_ACCESS_ERR :
		reason == MR_NACK_INVALID_REQ ? IBV_WC_REM_INV_REQ_ERR : IBV_WC_REM_OP_ERR;
}

/* The verdict of DIE step @s on the victim's responder: its fatal NACK. */
static void ins_check_nack(const struct istep *s, const char *vst, int rerr)
{
	if (!I.fatal_nack) {
		ins_bad("the victim QP is %s but no fatal NACK reached the insider (nor a repeat, MR-REL-28); MR-VERBS-21 requires %s",
			vst, nack_name[s->nack]);
		return;
	}
	if (I.fatal_nack != s->nack)
		ins_bad("fatal NACK %s for psn %#x, MR-VERBS-21 requires %s for this request",
			nack_name[I.fatal_nack & 7], I.fatal_psn, nack_name[s->nack]);
	if (I.have_bad && I.fatal_psn != I.bad_psn)
		ins_bad("the fatal NACK names psn %#x, the refused request has psn %#x: the error point is the request's own PSN (MR-VERBS-24, MR-REL-25)",
			I.fatal_psn, I.bad_psn);
	if (I.fatal_cum != I.fatal_psn)
		ins_bad("the fatal NACK has nack_psn %#x and cum_psn %#x: it is sent when cum_psn reaches the error point (MR-VERBS-24, MR-REL-18)",
			I.fatal_psn, I.fatal_cum);
	if (rerr >= 0 && strcmp(s->cls, "send_long"))
		ins_bad("a receive WQE completed with %s: no receive WQE is consumed by this refusal (MR-VERBS-21)",
			wc_name(rerr));
}

static double ins_slice;

static void ins_step(unsigned int k, const struct istep *s)
{
	struct ibv_qp_init_attr qa = { .qp_type = IBV_QPT_RC,
				       .cap = { .max_send_wr = 4, .max_recv_wr = 4,
						.max_send_sge = 1, .max_recv_sge = 1 } };
	char l[512], gs[40], vst[16] = "?", events[256] = "-", flush[64] = "?",
		canary[256] = "?";
	int serr = -1, rerr = -1, ci = istep_cls(s->cls);
	unsigned int st, sok = 0, serrn = 0, rok = 0, rerrn = 0, rbad = 0;
	double t0 = now_s(), tend, slice, vdestroy = -1;
	uint64_t sent0 = cstat[ci].pkts;
	bool ok = true, probe;

	memset(&I.hist, 0, sizeof(I.hist));
	memset(&I.rdva, 0, sizeof(I.rdva));
	memset(&I.atva, 0, sizeof(I.atva));
	memset(&I.rdr, 0, sizeof(I.rdr));
	I.step = k;
	I.cls = s->cls;
	I.var = s->var;
	I.ex = s->ex;
	I.have_cum = I.have_vreq = I.have_vread = false;
	I.kts_valid = I.have_kcum = I.have_kpsn = I.have_vts = I.have_vlo = false;
	I.hold = I.have_bad = false;
	I.forge_other = 0;
	I.loose = s->flags & F_LOOSE;
	I.n_old = I.sends = 0;
	I.new_rd = I.fatal_nack = 0;
	I.fatal_psn = I.fatal_cum = 0;
	I.bad_reports = I.retx = 0;
	memset(I.nacks, 0, sizeof(I.nacks));
	I.rresp_pkts = I.rresp_bytes = I.rresp_unknown = I.aresp = I.aresp_retx = 0;
	I.max_lat = 0;
	I.cap_lag_max = 0;
	I.ping_out = I.lat_reported = false;
	snprintf(I.vstate, sizeof(I.vstate), "RTS");
	I.vserr = -1;
	cur_cls = ci;

	I.cq = ibv_create_cq(D.ctx, 16, NULL, NULL, 0);
	qa.send_cq = qa.recv_cq = I.cq;
	I.qp = I.cq ? ibv_create_qp(I.pd, &qa) : NULL;
	if (!I.qp || qp_to_init(I.qp, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
				IBV_ACCESS_REMOTE_WRITE))
		die("creating the insider's QP: %s", strerror(errno));
	I.aqpn = I.qp->qp_num;
	I.a0 = rnd32() & MR_PSN_MASK;
	gid_hex(&D.gid, gs);
	ctl_send("ROUND %u qpn=%x psn=%x gid=%s ava=%llx alen=%x arkey=%x chk=%u acc=%x", k,
		 I.aqpn, I.a0, gs, (unsigned long long)(uintptr_t)I.ab, ATT_MR_LEN,
		 I.amr->rkey, s->ex != MAY && !(s->flags & F_NOCHK), s->acc);
	if (!ctl_wait("READY ", l, sizeof(l), 30 * (int)O.slowdown) ||
	    sscanf(l, "READY %u qpn=%x psn=%x", &st, &I.vqpn, &I.v0) != 3 || st != k) {
		violation("step %u: the victim did not set up its QP (%s)", k,
			  ctl_take("FAIL", l, sizeof(l)) ? l : "no answer in time");
		die("cannot go on without a victim");
	}
	if (qp_to_rtr_rts(I.qp, I.vqpn, I.v0, I.a0, &I.vgid))
		die("connecting the insider's QP: %s", strerror(errno));
	ctl_send("GO %u", k);
	I.active = true;
	I.next_psn = mr_psn_add(I.a0, 1);
	I.next_msn = 1;
	I.next_ssn = 0;
	I.cum_t = now_s();
	class_start("insider", s->cls, s->var);
	probe = ins_probe();
	slice = ins_slice;
	/*
	 * A DIE step ends when the victim QP does; the bound only catches
	 * a victim that never refuses. It scales with the kernel: the
	 * refusal waits for the READ responses before it (MR-VERBS-24),
	 * which a debug kernel may not begin within 3 s.
	 */
	if (s->ex == DIE)
		slice = 3.0 * O.slowdown;
	tend = now_s() + slice;
	if (probe)
		s->fn(s->arg, tend);
	if (!ins_dead())
		ins_drain(1.0);
	/* Let late answers arrive, then ask the victim. */
	ins_wait(0.2);
	/*
	 * A KEEP step whose victim QP failed, a DIE step whose victim QP
	 * did not: its transport state, for the log.
	 */
	if (s->ex != MAY && ins_ask_state(3) &&
	    !strcmp(I.vstate, "ERR") == (s->ex == KEEP)) {
		ctl_send("DIAG %u", k);
		ctl_wait("DIAGED ", l, sizeof(l), 10);
	}
	I.active = false;
	ctl_send("END %u", k);
	{
		double te = now_s();

		if (!ctl_wait("ENDED ", l, sizeof(l), 60 * (int)O.slowdown)) {
			violation("step %u %s: the victim did not end the step within %u s",
				  k, s->cls, 60 * O.slowdown);
			die("victim lost");
		}
		if (now_s() - te > 20.0 * O.slowdown)
			violation("step %u %s: ending the step (QP to ERR, flush, destroy) took %.1f s on the victim",
				  k, s->cls, now_s() - te);
	}
	sscanf(l, "ENDED %u state=%15s serr=%d rerr=%d sok=%u serrn=%u rok=%u rerrn=%u rbad=%u events=%255s flush=%63s destroy=%lf canary=%255s",
	       &st, vst, &serr, &rerr, &sok, &serrn, &rok, &rerrn, &rbad, events, flush,
	       &vdestroy, canary);
	if (strcmp(flush, "ok") || strcmp(canary, "ok") || rbad)
		ok = false;	/* the victim reported (and counts) it */

	switch (s->ex) {
	case KEEP:
		if (strcmp(vst, "RTS") || I.fatal_nack) {
			ins_bad("the victim QP %s (fatal NACK %s for psn %#x, receive status %s, send status %s): input that must be dropped or ignored ended it (MR-MAL-1, MR-REL-1, MR-REL-7..10, MR-ICRC-4, MR-SEC-6)",
				strcmp(vst, "RTS") ? "left RTS for ERR" : "sent a fatal NACK",
				nack_name[I.fatal_nack & 7], I.fatal_psn, wc_name(rerr), wc_name(serr));
		}
		break;
	case DIE:
		if (s->flags & F_FORGE) {
			int want = nack_wc(s->arg);

			if (strcmp(vst, "ERR"))
				ins_bad("the victim QP is still %s: a fatal NACK with nack_psn = cum_psn at its outstanding request and a recent echo must fail the WR there (MR-REL-18, MR-SEC-6)",
					vst);
			else if (I.forge_other && serr == nack_wc(I.forge_other))
				ins_bad("the victim's WR failed with %s: a NACK %s whose ts_echo was no recent timestamp of the victim's clock was acted on (MR-SEC-6)",
					wc_name(serr), nack_name[I.forge_other]);
			else if (serr != want)
				ins_bad("the forged NACK ended the victim's WR with %s, the spec maps it to %s (MR-VERBS-22)",
					wc_name(serr), wc_name(want));
		} else if (strcmp(vst, "ERR")) {
			ins_bad("the victim QP is still %s: the request was not refused (MR-SEC-10, MR-VERBS-21, MR-VERBS-24)",
				vst);
		} else {
			ins_check_nack(s, vst, rerr);
			if (!strcmp(s->cls, "send_long") && rerr != IBV_WC_LOC_LEN_ERR)
				ins_bad("the receive WQE completed with %s, MR-VERBS-21 requires IBV_WC_LOC_LEN_ERR",
					wc_name(rerr));
		}
		if (I.sends && rok != I.sends)
			ins_bad("%u of the %u SENDs before the refused request completed at the victim: every earlier message completes first (MR-VERBS-24)",
				rok, I.sends);
		break;
	default:
		break;
	}
	if (I.bad_reports)
		ok = false;
	say("HOSTILE-STEP %u %s%s%s expect=%s sent=%" PRIu64 "(resent %u) %.1fs psn=%#x cum=%#x victim=%s nacks=trim:%u,seq:%u,rnr:%u,acc:%u,inv:%u,op:%u fatal=%s@%#x/cum:%#x%s read_resp=%" PRIu64 "/%" PRIu64 "B(unmapped %" PRIu64 ") atomic_resp=%" PRIu64 "(retx %" PRIu64 ") send_wc=%u/%u(%s) recv_wc=%u/%u(%s) events=%s ctl_max=%.0fms cap_lag_max=%.0fms victim_destroy=%.2fs -> %s",
	    k, s->cls, s->var ? "/" : "", s->var ? s->var : "", expect_name[s->ex],
	    cstat[ci].pkts - sent0, I.retx, now_s() - t0, I.next_psn, ins_cum(), vst, I.nacks[1], I.nacks[2],
	    I.nacks[3], I.nacks[4], I.nacks[5], I.nacks[6], nack_name[I.fatal_nack & 7],
	    I.fatal_psn, I.fatal_cum, I.have_bad ? "" : "(no request refused)",
	    I.rresp_pkts, I.rresp_bytes, I.rresp_unknown, I.aresp, I.aresp_retx, sok, serrn,
	    wc_name(serr), rok, rerrn, wc_name(rerr), events, I.max_lat * 1000,
	    I.cap_lag_max / 1000.0, vdestroy, ok ? "ok" : "VIOLATION");
	if (I.have_bad)
		say("HOSTILE-STEP %u refused request at psn %#x", k, I.bad_psn);
	ibv_destroy_qp(I.qp);
	ibv_destroy_cq(I.cq);
	I.qp = NULL;
	I.cq = NULL;
}

void run_insider(void)
{
	int sel[N_ISTEPS], ns = 0;
	unsigned long long va, len, ova, lva, sva, seed;
	char l[512], gs[40];
	double end;
	unsigned int k;

	role = "insider";
	for (int i = 0; i < N_ISTEPS; i++)
		if (class_selected(isteps[i].cls))
			sel[ns++] = i;
	if (!ns)
		die("--classes selects no insider step (--list)");
	dev_open();
	net_open(O.peer, SP_INS_VALID, SP_INS_ATTACK * 2 - SP_INS_VALID - 1, true);
	{
		/*
		 * The capture sees both VMs' traffic and the insider checks
		 * what the victim sends: 1 MiB of socket buffer (about 450
		 * frames) rides out a busy second (root: past rmem_max).
		 */
		int rb = 1 << 20;

		if (setsockopt(N.cap, SOL_SOCKET, SO_RCVBUFFORCE, &rb, sizeof(rb)))
			setsockopt(N.cap, SOL_SOCKET, SO_RCVBUF, &rb, sizeof(rb));
	}
	cap_hook = ins_cap;
	ctl_line_hook = ins_ctl_line;
	svc_hook = ins_svc;
	I.pd = ibv_alloc_pd(D.ctx);
	I.ab = alloc_pinned(ATT_MR_LEN);
	I.amr = I.pd ? ibv_reg_mr(I.pd, I.ab, ATT_MR_LEN, IBV_ACCESS_LOCAL_WRITE |
				  IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE) : NULL;
	if (!I.amr)
		die("ibv_reg_mr: %s", strerror(errno));
	ins_connect(O.peer);
	if (!ctl_wait("HELLO ", l, sizeof(l), O.connect_timeout) ||
	    sscanf(l, "HELLO va=%llx len=%llx rkey=%x ova=%llx orkey=%x lva=%llx lrkey=%x sva=%llx srkey=%x seed=%llx gid=%32s",
		   &va, &len, &I.rkey, &ova, &I.orkey, &lva, &I.lrkey, &sva, &I.srkey,
		   &seed, gs) != 11 || !gid_parse(gs, &I.vgid))
		die("no HELLO from the victim (%s)", ctl_eof ? "connection closed" : l);
	I.base = va;
	I.len = len;
	I.ova = ova;
	I.lva = lva;
	I.sva = sva;
	I.pseed = seed;
	/* One pass over the table in --time (about 0.5 s of set-up per step),
	 * between 0.5 and 5 s per KEEP/MAY step; DIE steps end with the QP. */
	ins_slice = O.slice_ms ? O.slice_ms / 1000.0 : (double)O.time_s / ns - 0.6;
	if (!O.slice_ms && ins_slice < 0.5)
		ins_slice = 0.5;
	if (!O.slice_ms && ins_slice > 5)
		ins_slice = 5;
	say("victim %s: MR %llu MiB rkey %#x; %u packets/s for %us, seed %" PRIu64
	    ", %d steps of %.1fs, control-channel bound %u ms", ip_str(N.peer), len >> 20,
	    I.rkey, O.rate, O.time_s, O.seed, ns, ins_slice, O.max_lat_ms);
	t_start = now_s();
	end = t_start + O.time_s;
	for (k = 0; now_s() < end && !ctl_eof; k++)
		ins_step(k, &isteps[sel[k % (unsigned int)ns]]);
	if (k < (unsigned int)ns)
		say("the time ran out after %u of %d steps", k, ns);
	ctl_send("BYE");
	if (ctl_wait("BYE", l, sizeof(l), 120)) {
		unsigned int vv = 0;

		sscanf(l, "BYE violations=%u", &vv);
		if (vv)
			say("the victim reported %u violation(s)", vv);
	} else {
		violation("the victim did not answer BYE within 120 s (its final MR check)");
	}
	print_summary("insider", MAX_CLASSES);
}

void list_insider(void)
{
	printf("insider steps (--insider; expectation; --classes CLASS,...):\n");
	for (int i = 0; i < N_ISTEPS; i++) {
		char n[48], e[24];

		snprintf(n, sizeof(n), "%s%s%s", isteps[i].cls, isteps[i].var ? "/" : "",
			 isteps[i].var ? isteps[i].var : "");
		snprintf(e, sizeof(e), "%s%s%s", expect_name[isteps[i].ex],
			 isteps[i].nack ? " " : "", isteps[i].nack ? nack_name[isteps[i].nack] : "");
		printf("  %-26s %-17s %s\n", n, e, isteps[i].what);
	}
}
