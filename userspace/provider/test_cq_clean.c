// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Host test of mroce_cq_discard_qp() (cq_clean.c) on a CQ ring in plain
 * memory: the CQEs of the reset QP leave, the others keep their order
 * and end at the kernel's prod, cons advances by the number removed,
 * slots at and beyond prod are never touched, and a corrupt prod leaves
 * the ring alone.  Exit status 0 when every check holds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metaroce.h"

#define ENTRIES 8u

static int failures;

#define CHECK(cond)							\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "test_cq_clean: %s:%d: %s\n",	\
				__FILE__, __LINE__, #cond);		\
			failures++;					\
		}							\
	} while (0)

struct fake_cq {
	struct mroce_cq cq;
	unsigned char mem[METAROCE_RING_HDR_SIZE +
			  ENTRIES * sizeof(struct metaroce_cqe)];
};

static void setup(struct fake_cq *f, uint32_t cons, const uint32_t *qpns,
		  uint32_t n)
{
	struct mroce_ring *r = &f->cq.ring;
	struct metaroce_cqe *e;
	uint32_t i;

	memset(f, 0, sizeof(*f));
	pthread_spin_init(&f->cq.lock, PTHREAD_PROCESS_PRIVATE);
	r->hdr = (struct metaroce_ring_hdr *)f->mem;
	r->slots = f->mem + METAROCE_RING_HDR_SIZE;
	r->entries = ENTRIES;
	r->stride = sizeof(struct metaroce_cqe);
	r->idx = cons;
	r->hdr->cons = cons;
	/* Every slot: wr_id 0xdead (untouched marker). */
	for (i = 0; i < ENTRIES; i++) {
		e = mroce_ring_slot(r, i);
		e->wr_id = 0xdead;
		e->qp_num = 0xffffff;
	}
	for (i = 0; i < n; i++) {
		e = mroce_ring_slot(r, cons + i);
		e->qp_num = qpns[i];
		e->wr_id = 100 + i;
	}
	r->hdr->prod = cons + n;
}

static uint64_t wr_at(struct fake_cq *f, uint32_t idx)
{
	return ((struct metaroce_cqe *)mroce_ring_slot(&f->cq.ring, idx))->wr_id;
}

int main(void)
{
	static const uint32_t mixed[] = { 7, 5, 7, 9, 7, 5 };
	static const uint32_t none[] = { 5, 9 };
	struct fake_cq *f = calloc(1, sizeof(*f));
	uint32_t cons;

	if (!f)
		return 2;
	/* Wrapping indices: cons 0xfffffffe, 6 CQEs, QP 7 has three. */
	cons = 0xfffffffeu;
	setup(f, cons, mixed, 6);
	mroce_cq_discard_qp(&f->cq.vcq.cq, 7);
	CHECK(f->cq.ring.idx == cons + 3);
	CHECK(f->cq.ring.hdr->cons == cons + 3);
	CHECK(f->cq.ring.hdr->prod == cons + 6);
	/* Kept, in order: wr 101 (QP 5), 103 (QP 9), 105 (QP 5). */
	CHECK(wr_at(f, cons + 3) == 101);
	CHECK(wr_at(f, cons + 4) == 103);
	CHECK(wr_at(f, cons + 5) == 105);
	/* Slots at and beyond prod untouched. */
	CHECK(wr_at(f, cons + 6) == 0xdead);
	CHECK(wr_at(f, cons + 7) == 0xdead);

	/* No CQE of the QP: nothing moves, cons stays. */
	setup(f, 3, none, 2);
	mroce_cq_discard_qp(&f->cq.vcq.cq, 7);
	CHECK(f->cq.ring.idx == 3 && f->cq.ring.hdr->cons == 3);
	CHECK(wr_at(f, 3) == 100 && wr_at(f, 4) == 101);

	/* A corrupt prod (more than a ring ahead): the ring is left alone. */
	setup(f, 0, mixed, 6);
	f->cq.ring.hdr->prod = ENTRIES + 1;
	mroce_cq_discard_qp(&f->cq.vcq.cq, 7);
	CHECK(f->cq.ring.idx == 0 && f->cq.ring.hdr->cons == 0);
	CHECK(wr_at(f, 0) == 100 && wr_at(f, 2) == 102);

	free(f);
	if (failures)
		return 1;
	printf("test_cq_clean: compaction, order, bounds and corrupt prod OK\n");
	return 0;
}
