// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mr-verify: one phase in rounds, as requester or responder: post, wait
 * for completions, check every completion and every byte.
 */
#include "mr-verify.h"

/* ------------------------------------------------------------------ */
/* Verification                                                       */

struct mctx {
	const struct phase *ph;
	uint32_t iter;
	uint32_t qp;
	const char *what;	/* which buffer */
};

static const char *req_name(const struct phase *ph)
{
	return ph->dir == 0 ? "server" : "client";
}

static void hexdump16(char *out, size_t outlen, const uint8_t *p, size_t n)
{
	size_t o = 0;

	out[0] = 0;
	for (size_t i = 0; i < n && i < 16 && o + 4 < outlen; i++)
		o += snprintf(out + o, outlen - o, "%s%02x", i ? " " : "", p[i]);
}

static void check_canary(struct mrv *run, const uint8_t *buf, const struct layout *lo,
			 size_t from, size_t to, const struct mctx *mc)
{
	for (size_t i = from; i < to; i++) {
		if (buf[i] == canary_at(i))
			continue;
		size_t first = lo->n ? lo->off[0] : lo->start + CANARY;
		size_t endd = lo->n ? lo->off[lo->n - 1] + lo->dlen[lo->n - 1] : first;
		const char *where = i < first ? "before the message" :
				    i >= endd ? "after the message" :
				    "in a gap between SGEs";
		size_t bad = 0;

		for (size_t j = from; j < to; j++)
			bad += buf[j] != canary_at(j);
		fail(run, "CANARY op=%s size=%" PRIu64 " pass=%u msg=%u qp=%u requester=%s: "
		     "%s byte at slot offset %zu (%s) overwritten: expected 0x%02x got 0x%02x (%zu such bytes in that range)",
		     op_name[mc->ph->op], mc->ph->size, mc->ph->pass, mc->iter,
		     mc->qp, req_name(mc->ph), mc->what, i - lo->start, where,
		     canary_at(i), buf[i], bad);
	}
}

/* Compare the message bytes in a layout against exp; with canaries, also
 * check everything else in the slot. */
static void check_layout(struct mrv *run, const uint8_t *buf, const struct layout *lo,
			 const uint8_t *exp, bool canaries,
			 const struct mctx *mc)
{
	size_t m = 0, cur = lo->start;

	for (unsigned j = 0; j < lo->n; j++) {
		const uint8_t *got = buf + lo->off[j], *want = exp + m;

		if (canaries)
			check_canary(run, buf, lo, cur, lo->off[j], mc);
		if (memcmp(got, want, lo->dlen[j])) {
			size_t i = 0, bad = 0, mm = 0;
			char e[64], g[64];

			while (got[i] == want[i])
				i++;
			for (unsigned k = 0; k < lo->n; k++) {
				for (size_t x = 0; x < lo->dlen[k]; x++)
					bad += buf[lo->off[k] + x] != exp[mm + x];
				mm += lo->dlen[k];
			}
			hexdump16(e, sizeof(e), want + i,
				  lo->dlen[j] - i);
			hexdump16(g, sizeof(g), got + i, lo->dlen[j] - i);
			detail(run, "expected: %s", e);
			detail(run, "got:      %s", g);
			fail(run, "MISMATCH op=%s size=%" PRIu64 " pass=%u msg=%u qp=%u requester=%s: "
			     "%s: first bad byte at message offset %zu (SGE %u of %u, slot offset %zu): "
			     "expected 0x%02x got 0x%02x; %zu bad byte(s) in the message",
			     op_name[mc->ph->op], mc->ph->size, mc->ph->pass,
			     mc->iter, mc->qp, req_name(mc->ph), mc->what, m + i,
			     j + 1, lo->n, lo->off[j] + i - lo->start, want[i],
			     got[i], bad);
		}
		m += lo->dlen[j];
		cur = lo->off[j] + lo->dlen[j];
	}
	if (canaries)
		check_canary(run, buf, lo, cur, lo->end, mc);
}

/* --corrupt-for-test: flip one byte of the first non-empty message this
 * process is the source of, in the source buffer and in its own record of
 * what it sent (so that only the peer's check can notice). */
static void maybe_corrupt(struct mrv *run, uint8_t *buf, const struct layout *lo,
			  uint8_t *exp, size_t size, const struct mctx *mc)
{
	size_t m, pos;

	if (!run->o.corrupt || run->s.corrupted || size == 0)
		return;
	run->s.corrupted = true;
	m = size / 2;
	pos = layout_pos(lo, m);
	buf[pos] ^= 0x5a;
	exp[m] ^= 0x5a;
	say(run, "corrupt-for-test: flipped byte %zu of the %s message %u (size %" PRIu64 ") in the source buffer",
	    m, op_name[mc->ph->op], mc->iter, mc->ph->size);
}

/* ------------------------------------------------------------------ */
/* Completions                                                        */

static void arm_events(struct mrv *run, struct ibv_cq *cq)
{
	if (ibv_req_notify_cq(cq, 0))
		fail(run, "ibv_req_notify_cq failed");
}

/*
 * Poll up to n completions and count them off the WRs posted to that CQ: a
 * reuse after an error must know how many are still to come back flushed.
 */
int poll_counted(struct mrv *run, struct ibv_cq *cq, int n, struct ibv_wc *wc,
			const char *what)
{
	uint32_t *posted = cq == run->s.scq ? &run->s.sq_posted : &run->s.rq_posted;
	int k = ibv_poll_cq(cq, n, wc);

	if (k < 0)
		fail(run, "ibv_poll_cq (%s) failed: %d", what, k);
	if ((uint32_t)k > *posted)
		fail(run, "%d %s completion(s) but only %u WR(s) outstanding",
		     k, what, *posted);
	*posted -= (uint32_t)k;
	return k;
}

/*
 * Collect n completions from cq, waiting at most the watchdog. Returns how
 * many were collected: n, or fewer when one with an error status arrived
 * (it is the last one returned).
 */
static int wait_cq(struct mrv *run, struct ibv_cq *cq, struct ibv_comp_channel *ch, int n,
		   struct ibv_wc *wc, const char *what)
{
	double deadline = now_s() + run->o.watchdog;
	bool armed = false;
	int got = 0;

	while (got < n) {
		int k = poll_counted(run, cq, n - got, wc + got, what);

		if (k > 0) {
			for (int i = got; i < got + k; i++)
				if (wc[i].status != IBV_WC_SUCCESS)
					return i + 1;
			got += k;
			continue;
		}
		if (now_s() >= deadline)
			fail_wc(run, 0, "watchdog: %d of %d %s completions after %d s",
				got, n, what, run->o.watchdog);
		if (run->o.busy_poll) {
			sched_yield();
			continue;
		}
		if (!armed) {
			arm_events(run, cq);
			armed = true;
			continue;	/* poll once more: no lost wake-up */
		}
		struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
		int ms = (int)((deadline - now_s()) * 1000) + 1;

		if (poll(&pfd, 1, ms) < 0 && errno != EINTR)
			fail(run, "poll on the completion channel: %s", strerror(errno));
		if (pfd.revents & POLLIN) {
			struct ibv_cq *ecq;
			void *ectx;

			if (!ibv_get_cq_event(ch, &ecq, &ectx)) {
				ibv_ack_cq_events(ecq, 1);
				armed = false;
			}
		}
	}
	return got;
}

static uint64_t wr_id_of(struct mrv *run, uint32_t k)
{
	return ((uint64_t)run->s.round_seq << 20) | k;
}

static const char *wc_opcode_name(int op)
{
	switch (op) {
	case IBV_WC_SEND: return "SEND";
	case IBV_WC_RDMA_WRITE: return "RDMA_WRITE";
	case IBV_WC_RDMA_READ: return "RDMA_READ";
	case IBV_WC_COMP_SWAP: return "COMP_SWAP";
	case IBV_WC_FETCH_ADD: return "FETCH_ADD";
	case IBV_WC_RECV: return "RECV";
	case IBV_WC_RECV_RDMA_WITH_IMM: return "RECV_RDMA_WITH_IMM";
	default: return "?";
	}
}

/*
 * Check n completions of one round: success, the expected opcode, and per QP
 * the posting order (message k is on QP k % nqp, in increasing k).
 */
static void check_wcs(struct mrv *run, const struct phase *ph, uint32_t base, struct ibv_wc *wc,
		      int got, int n, bool recv, const struct mdesc *d)
{
	uint32_t next[MAX_QP];
	int want_op;

	for (uint32_t q = 0; q < run->o.nqp; q++)
		next[q] = q;
	switch (ph->op) {
	case OP_SEND:
	case OP_SEND_IMM: want_op = recv ? IBV_WC_RECV : IBV_WC_SEND; break;
	case OP_WRITE:
	case OP_WRITE_IMM:
		want_op = recv ? IBV_WC_RECV_RDMA_WITH_IMM : IBV_WC_RDMA_WRITE;
		break;
	case OP_READ: want_op = IBV_WC_RDMA_READ; break;
	case OP_CAS: want_op = IBV_WC_COMP_SWAP; break;
	default: want_op = IBV_WC_FETCH_ADD; break;
	}
	for (int i = 0; i < got; i++) {
		struct ibv_wc *w = &wc[i];
		uint32_t k = w->wr_id & 0xfffff, q;

		if ((w->wr_id >> 20) != run->s.round_seq || k >= (uint32_t)n) {
			if (w->status != IBV_WC_SUCCESS)
				fail_wc(run, w->status, "error completion %s (%d, vendor_err 0x%x) with unknown wr_id 0x%" PRIx64 " (op=%s size=%" PRIu64 " requester=%s, %s side)",
					ibv_wc_status_str(w->status), w->status,
					w->vendor_err, w->wr_id,
					op_name[ph->op], ph->size,
					req_name(ph),
					recv ? "receive" : "send");
			fail(run, "completion with unexpected wr_id 0x%" PRIx64 " (round %u, %d messages; op=%s size=%" PRIu64 ")",
			     w->wr_id, run->s.round_seq, n, op_name[ph->op],
			     ph->size);
		}
		q = k % run->o.nqp;
		if (w->status != IBV_WC_SUCCESS)
			fail_wc(run, w->status, "error completion op=%s size=%" PRIu64 " pass=%u msg=%u qp=%u requester=%s (%s side): status %s (%d: %s), vendor_err 0x%x",
				op_name[ph->op], ph->size, ph->pass,
				base + k, q,
				req_name(ph), recv ? "receive" : "send",
				wc_name(w->status), w->status,
				ibv_wc_status_str(w->status), w->vendor_err);
		if (w->qp_num != run->s.qp[q]->qp_num)
			fail(run, "completion for msg slot %u carries qp_num 0x%x, expected 0x%x (op=%s size=%" PRIu64 ")",
			     k, w->qp_num, run->s.qp[q]->qp_num, op_name[ph->op],
			     ph->size);
		if (k != next[q])
			fail(run, "completion order on qp %u: got slot %u, expected slot %u (op=%s size=%" PRIu64 ")",
			     q, k, next[q], op_name[ph->op], ph->size);
		next[q] += run->o.nqp;
		if ((int)w->opcode != want_op)
			fail(run, "completion opcode %s (%d), expected %s (op=%s size=%" PRIu64 " slot %u, %s side)",
			     wc_opcode_name(w->opcode), w->opcode,
			     wc_opcode_name(want_op), op_name[ph->op],
			     ph->size, k, recv ? "receive" : "send");
		if (!recv)
			continue;
		if (w->byte_len != ph->size)
			fail(run, "RECV byte_len %u, expected %" PRIu64 " (op=%s slot %u qp %u requester=%s)",
			     w->byte_len, ph->size, op_name[ph->op], k, q,
			     req_name(ph));
		if (op_imm(ph->op)) {
			if (!(w->wc_flags & IBV_WC_WITH_IMM))
				fail(run, "completion without IBV_WC_WITH_IMM (op=%s size=%" PRIu64 " slot %u)",
				     op_name[ph->op], ph->size, k);
			if (ntohl(w->imm_data) != d[k].imm)
				fail(run, "immediate 0x%08x, expected 0x%08x (op=%s size=%" PRIu64 " slot %u qp %u)",
				     ntohl(w->imm_data), d[k].imm,
				     op_name[ph->op], ph->size, k, q);
		} else if (w->wc_flags & IBV_WC_WITH_IMM) {
			fail(run, "completion has IBV_WC_WITH_IMM for a plain %s (size=%" PRIu64 " slot %u)",
			     op_name[ph->op], ph->size, k);
		}
	}
	if (got != n)
		fail(run, "internal: %d of %d completions", got, n);
}

/* ------------------------------------------------------------------ */
/* Rounds                                                             */

uint32_t atom_words(struct mrv *run)
{
	return WORDS_PER_QP * run->o.nqp;
}

static uint32_t atom_word(struct mrv *run, const struct mdesc *d, uint32_t k)
{
	return k % run->o.nqp + run->o.nqp * (d->wsel % WORDS_PER_QP);
}

static size_t atom_off(uint32_t w)
{
	return CANARY + 8 * (size_t)w;
}

/* Apply message k to the model; returns the value the op must return. */
static uint64_t atom_apply(struct mrv *run, const struct phase *ph, const struct mdesc *d,
			   uint32_t k, uint64_t *cmp, uint64_t *arg)
{
	uint32_t w = atom_word(run, d, k);
	uint64_t old = run->s.atom_model[w];

	if (ph->op == OP_CAS) {
		*cmp = d->cas_hit ? old : old ^ (d->a | 1);
		*arg = d->b;
		if (d->cas_hit)
			run->s.atom_model[w] = d->b;
	} else {
		*cmp = d->a;
		*arg = 0;
		run->s.atom_model[w] = old + d->a;
	}
	return old;
}

static uint64_t atom_hash_model(struct mrv *run)
{
	return fnv(FNV_INIT, (const uint8_t *)run->s.atom_model, 8 * atom_words(run));
}

static void atom_phase_init(struct mrv *run, const struct phase *ph, bool responder)
{
	uint64_t key = mix(phase_key(run, ph), 0x61746f6dull);

	for (uint32_t w = 0; w < atom_words(run); w++)
		run->s.atom_model[w] = mix(key, w);
	if (!responder)
		return;
	fill_canary(run->s.abuf, 0, run->s.abuf_len);
	for (uint32_t w = 0; w < atom_words(run); w++)
		memcpy(run->s.abuf + atom_off(w), &run->s.atom_model[w], 8);
	if (run->o.corrupt && !run->s.corrupted) {
		struct mdesc d;
		uint32_t w;

		msg_desc(run, ph, 0, &d);
		w = atom_word(run, &d, 0);
		run->s.corrupted = true;
		run->s.abuf[atom_off(w)] ^= 0x5a;
		((uint8_t *)&run->s.atom_model[w])[0] ^= 0x5a;
		say(run, "corrupt-for-test: flipped a byte of atomic word %u before the %s phase",
		    w, op_name[ph->op]);
	}
}

static void requester_round(struct mrv *run, const struct phase *ph, uint32_t base,
			    uint32_t n, struct mdesc *d)
{
	static struct ibv_send_wr wr[QDEPTH * MAX_QP];
	static struct ibv_sge sge[QDEPTH * MAX_QP][MAX_SGE];
	static struct layout lo[QDEPTH * MAX_QP];
	static uint64_t ret_want[QDEPTH * MAX_QP];
	static struct ibv_wc wc[QDEPTH * MAX_QP];
	struct ibv_send_wr *head[MAX_QP] = { 0 }, *tail[MAX_QP] = { 0 };
	size_t stride = op_atomic(ph->op) ? 0 : stride_of(ph->size);
	uint64_t csum = FNV_INIT;
	struct ctl c;
	int got;

	for (uint32_t k = 0; k < n; k++) {
		struct mctx mc = { ph, base + k, k % run->o.nqp, "source" };
		struct ibv_send_wr *w = &wr[k];
		uint32_t q = k % run->o.nqp;
		unsigned cap = ph->op == OP_READ ? run->s.read_sge : run->s.send_sge;
		unsigned nsge = 1;

		msg_desc(run, ph, base + k, &d[k]);
		memset(w, 0, sizeof(*w));
		w->wr_id = wr_id_of(run, k);
		w->sg_list = sge[k];
		w->send_flags = IBV_SEND_SIGNALED;
		if (op_atomic(ph->op)) {
			uint64_t cmp, arg;

			ret_want[k] = atom_apply(run, ph, &d[k], k, &cmp, &arg);
			memset(run->s.aret + 8 * k, 0xEE, 8);
			sge[k][0] = (struct ibv_sge){
				.addr = (uintptr_t)(run->s.aret + 8 * k),
				.length = 8, .lkey = run->s.retmr->lkey };
			w->num_sge = 1;
			w->opcode = ph->op == OP_CAS ?
				IBV_WR_ATOMIC_CMP_AND_SWP :
				IBV_WR_ATOMIC_FETCH_AND_ADD;
			w->wr.atomic.remote_addr = run->s.peer.abuf_addr +
				atom_off(atom_word(run, &d[k], k));
			w->wr.atomic.rkey = run->s.peer.abuf_rkey;
			w->wr.atomic.compare_add = cmp;
			w->wr.atomic.swap = arg;
		} else {
			if (d[k].multi_r && cap >= 2)
				nsge = 2 + d[k].lay_seed % (cap - 1);
			make_layout(&lo[k], k * stride, stride, ph->size, nsge,
				    0, d[k].lay_seed ^ 0x5245510aull);
			mc.what = ph->op == OP_READ ? "READ destination" :
							 "source";
			if (ph->op == OP_READ) {
				fill_canary(run->s.sbuf, lo[k].start, lo[k].end);
			} else {
				uint8_t *e = run->s.ebuf + k * stride;

				gen_data(d[k].data_seed, e, ph->size);
				fill_junk(run->s.sbuf, lo[k].start, lo[k].end);
				copy_in(run->s.sbuf, &lo[k], e);
				maybe_corrupt(run, run->s.sbuf, &lo[k], e, ph->size, &mc);
			}
			for (unsigned j = 0; j < lo[k].n; j++)
				sge[k][j] = (struct ibv_sge){
					.addr = (uintptr_t)(run->s.sbuf + lo[k].off[j]),
					.length = lo[k].len[j],
					.lkey = run->s.smr->lkey };
			w->num_sge = (int)lo[k].n;
			if (ph->op != OP_READ && d[k].inl && ph->size &&
			    ph->size <= run->s.max_inline)
				w->send_flags |= IBV_SEND_INLINE;
			w->wr.rdma.remote_addr = run->s.peer.rbuf_addr +
				k * stride + CANARY + d[k].misalign;
			w->wr.rdma.rkey = run->s.peer.rbuf_rkey;
			switch (ph->op) {
			case OP_SEND: w->opcode = IBV_WR_SEND; break;
			case OP_SEND_IMM: w->opcode = IBV_WR_SEND_WITH_IMM; break;
			case OP_WRITE: w->opcode = IBV_WR_RDMA_WRITE; break;
			case OP_WRITE_IMM:
				w->opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
				break;
			default: w->opcode = IBV_WR_RDMA_READ; break;
			}
			if (op_imm(ph->op))
				w->imm_data = htonl(d[k].imm);
		}
		if (tail[q])
			tail[q]->next = w;
		else
			head[q] = w;
		tail[q] = w;
	}

	ctl_recv(run, &c, CTL_READY);
	for (uint32_t q = 0; q < run->o.nqp; q++) {
		struct ibv_send_wr *bad = NULL;
		int rc;

		if (!head[q])
			continue;
		rc = ibv_post_send(run->s.qp[q], head[q], &bad);
		if (rc)
			fail(run, "ibv_post_send (op=%s size=%" PRIu64 " qp %u): %s, bad wr slot %d",
			     op_name[ph->op], ph->size, q, strerror(rc),
			     bad ? (int)(bad->wr_id & 0xfffff) : -1);
	}
	/* A failed post ends the run above, never in a reuse: all n are out. */
	run->s.sq_posted += n;
	got = wait_cq(run, run->s.scq, run->s.sch, (int)n, wc, "send");
	check_wcs(run, ph, base, wc, got, (int)n, false, d);

	for (uint32_t k = 0; k < n; k++) {
		struct mctx mc = { ph, base + k, k % run->o.nqp, "source" };

		if (op_atomic(ph->op)) {
			uint64_t v;

			memcpy(&v, run->s.aret + 8 * k, 8);
			if (v != ret_want[k])
				fail(run, "ATOMIC MISMATCH op=%s pass=%u msg=%u qp=%u requester=%s: word %u returned 0x%016" PRIx64 ", expected original value 0x%016" PRIx64,
				     op_name[ph->op], ph->pass, base + k,
				     k % run->o.nqp, req_name(ph),
				     atom_word(run, &d[k], k), v, ret_want[k]);
			continue;
		}
		if (ph->op == OP_READ) {
			uint8_t *e = run->s.ebuf + k * stride;

			mc.what = "READ destination";
			gen_data(d[k].data_seed, e, ph->size);
			check_layout(run, run->s.sbuf, &lo[k], e, true, &mc);
		} else {
			mc.what = "requester's source buffer (changed by the send)";
			check_layout(run, run->s.sbuf, &lo[k], run->s.ebuf + k * stride,
				     false, &mc);
		}
		csum = fnv_layout(csum, run->s.sbuf, &lo[k]);
	}
	if (op_atomic(ph->op))
		csum = atom_hash_model(run);

	ctl_simple(run, CTL_DONE, csum, n);
	ctl_recv(run, &c, CTL_RESULT);
	if (c.v[0] != csum)
		fail(run, "CHECKSUM op=%s size=%" PRIu64 " pass=%u msgs %u..%u requester=%s: peer's 0x%016" PRIx64 " != mine 0x%016" PRIx64,
		     op_name[ph->op], ph->size, ph->pass, base, base + n - 1,
		     req_name(ph), c.v[0], csum);
}

static void responder_round(struct mrv *run, const struct phase *ph, uint32_t base,
			    uint32_t n, struct mdesc *d)
{
	static struct ibv_recv_wr wr[QDEPTH * MAX_QP];
	static struct ibv_sge sge[QDEPTH * MAX_QP][MAX_SGE];
	static struct layout lo[QDEPTH * MAX_QP];
	static struct ibv_wc wc[QDEPTH * MAX_QP];
	struct ibv_recv_wr *head[MAX_QP] = { 0 }, *tail[MAX_QP] = { 0 };
	size_t stride = op_atomic(ph->op) ? 0 : stride_of(ph->size);
	uint64_t csum = FNV_INIT;
	struct ctl c;

	for (uint32_t k = 0; k < n; k++) {
		struct mctx mc = { ph, base + k, k % run->o.nqp, "READ source" };
		struct ibv_recv_wr *w = &wr[k];
		uint32_t q = k % run->o.nqp;

		msg_desc(run, ph, base + k, &d[k]);
		if (op_atomic(ph->op)) {
			uint64_t cmp, arg;

			atom_apply(run, ph, &d[k], k, &cmp, &arg);
			continue;
		}
		if (op_send(ph->op)) {
			unsigned nsge = 1;

			if (d[k].multi_p && run->s.recv_sge >= 2)
				nsge = 2 + d[k].lay_seed % (run->s.recv_sge - 1);
			make_layout(&lo[k], k * stride, stride, ph->size, nsge,
				    d[k].extra, d[k].lay_seed ^ 0x52435600ull);
		} else {
			contig_layout(&lo[k], k * stride, stride, ph->size,
				      d[k].misalign);
		}
		fill_canary(run->s.rbuf, lo[k].start, lo[k].end);
		if (ph->op == OP_READ) {
			uint8_t *e = run->s.ebuf + k * stride;

			gen_data(d[k].data_seed, e, ph->size);
			copy_in(run->s.rbuf, &lo[k], e);
			maybe_corrupt(run, run->s.rbuf, &lo[k], e, ph->size, &mc);
		}
		if (!op_recv(ph->op))
			continue;
		memset(w, 0, sizeof(*w));
		w->wr_id = wr_id_of(run, k);
		w->sg_list = sge[k];
		if (op_send(ph->op)) {
			for (unsigned j = 0; j < lo[k].n; j++)
				sge[k][j] = (struct ibv_sge){
					.addr = (uintptr_t)(run->s.rbuf + lo[k].off[j]),
					.length = lo[k].len[j],
					.lkey = run->s.rmr->lkey };
			w->num_sge = (int)lo[k].n;
		} else if (d[k].recv_buf) {
			/* WRITE_IMM: a receive buffer that must stay untouched */
			fill_canary(run->s.sbuf, k * stride, k * stride + 2 * CANARY);
			sge[k][0] = (struct ibv_sge){
				.addr = (uintptr_t)(run->s.sbuf + k * stride + CANARY),
				.length = CANARY, .lkey = run->s.smr->lkey };
			w->num_sge = 1;
		}
		if (tail[q])
			tail[q]->next = w;
		else
			head[q] = w;
		tail[q] = w;
	}
	for (uint32_t q = 0; q < run->o.nqp; q++) {
		struct ibv_recv_wr *bad = NULL;
		int rc;

		if (!head[q])
			continue;
		rc = ibv_post_recv(run->s.qp[q], head[q], &bad);
		if (rc)
			fail(run, "ibv_post_recv (op=%s size=%" PRIu64 " qp %u): %s",
			     op_name[ph->op], ph->size, q, strerror(rc));
	}
	if (op_recv(ph->op))
		run->s.rq_posted += n;

	ctl_simple(run, CTL_READY, 0, n);
	ctl_recv(run, &c, CTL_DONE);

	if (op_recv(ph->op)) {
		int got = wait_cq(run, run->s.rcq, run->s.rch, (int)n, wc, "receive");

		check_wcs(run, ph, base, wc, got, (int)n, true, d);
	}
	if (op_atomic(ph->op)) {
		struct layout alo = { .start = 0, .end = run->s.abuf_len, .n = 1,
				      .off = { CANARY },
				      .dlen = { 8 * atom_words(run) } };
		struct mctx mc = { ph, base, 0, "atomic words" };

		for (uint32_t w = 0; w < atom_words(run); w++) {
			uint64_t v;

			memcpy(&v, run->s.abuf + atom_off(w), 8);
			if (v != run->s.atom_model[w])
				fail(run, "ATOMIC MISMATCH op=%s pass=%u msgs %u..%u requester=%s: word %u holds 0x%016" PRIx64 ", expected 0x%016" PRIx64,
				     op_name[ph->op], ph->pass, base,
				     base + n - 1, req_name(ph), w, v,
				     run->s.atom_model[w]);
		}
		check_layout(run, run->s.abuf, &alo, (const uint8_t *)run->s.atom_model, true,
			     &mc);
		csum = atom_hash_model(run);
	} else {
		for (uint32_t k = 0; k < n; k++) {
			struct mctx mc = { ph, base + k, k % run->o.nqp, "" };
			uint8_t *e = run->s.ebuf + k * stride;

			if (ph->op == OP_READ) {
				mc.what = "READ source (changed by the read)";
			} else {
				mc.what = op_send(ph->op) ? "receive buffer" :
							    "WRITE target";
				gen_data(d[k].data_seed, e, ph->size);
			}
			check_layout(run, run->s.rbuf, &lo[k], e, true, &mc);
			if (ph->op == OP_WRITE_IMM && d[k].recv_buf) {
				struct layout rl = { .start = k * stride,
					.end = k * stride + 2 * CANARY };

				mc.what = "WRITE_IMM receive buffer (must stay untouched)";
				check_canary(run, run->s.sbuf, &rl, rl.start, rl.end, &mc);
			}
			csum = fnv_layout(csum, run->s.rbuf, &lo[k]);
		}
	}
	if (c.v[0] != csum)
		fail(run, "CHECKSUM op=%s size=%" PRIu64 " pass=%u msgs %u..%u requester=%s: peer's 0x%016" PRIx64 " != mine 0x%016" PRIx64,
		     op_name[ph->op], ph->size, ph->pass, base, base + n - 1,
		     req_name(ph), c.v[0], csum);
	ctl_simple(run, CTL_RESULT, csum, n);
}

void do_phase(struct mrv *run, const struct phase *ph)
{
	static struct mdesc d[QDEPTH * MAX_QP];
	bool requester = (ph->dir == 0) == run->s.server;
	double t = now_s(), up = uptime_s();

	if (op_atomic(ph->op))
		atom_phase_init(run, ph, !requester);
	for (uint32_t done = 0; done < ph->iters;) {
		uint32_t n = round_width(run, ph, ph->iters - done);

		run->s.round_seq = (run->s.round_seq + 1) & 0xfffffff;
		if (requester)
			requester_round(run, ph, done, n, d);
		else
			responder_round(run, ph, done, n, d);
		done += n;
		run->s.rounds++;
	}
	run->s.msgs[ph->op] += ph->iters;
	run->s.bytes[ph->op] += ph->iters * ph->size;
	run->s.phases++;
	run->s.dirs_run |= 1u << ph->dir;
	vsay(run, "pass %u requester=%s %-9s size %-8" PRIu64 " x%-4u ok (%.2f s)",
	     ph->pass, req_name(ph), op_name[ph->op], ph->size, ph->iters,
	     now_s() - t);
	if (run->o.phase_times)
		say(run, "PHASE-TIME %.3f %.3f %s %s %" PRIu64 " %" PRIu64,
		    up, uptime_s(), req_name(ph), op_name[ph->op], ph->size,
		    op_atomic(ph->op) ? 0 : ph->iters * ph->size);
}
