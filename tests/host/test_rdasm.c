// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Host tests of the requester's READ reassembly (rdasm) and of the
 * 256-bit maps under it (bitmap): only bytes of a range asked for are
 * placed, each once (MR-PLACE-6); a READ is requested in ranges of at
 * most MR_RDASM_WINDOW bytes (MR-REL-31); what is missing is found as
 * maximal runs, which a requester asks for again exactly (MR-REL-24).
 * The maps are checked against a plain array of bits.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "rdasm.h"
#include "rdresp.h"
#include "mr_test_util.h"

/* ---- bitmap against an array of bools ------------------------------ */

static void to_bools(const u64 *m, bool *b)
{
	for (u32 i = 0; i < MR_SACK_BITS; i++)
		b[i] = (m[i / 64] >> (i % 64)) & 1;
}

static void test_map_ops(void **state)
{
	u64 seed = 7;

	(void)state;
	for (int iter = 0; iter < 2000; iter++) {
		u64 m[MR_SACK_WORDS], m2[MR_SACK_WORDS];
		bool b[MR_SACK_BITS], want[MR_SACK_BITS], got[MR_SACK_BITS];
		u32 n = 1 + (u32)(t_rand(&seed) % 300), from, run, i;
		u64 density = t_rand(&seed) % 4;

		for (i = 0; i < MR_SACK_WORDS; i++) {
			m[i] = t_rand(&seed);
			/* dense, sparse, full and empty words */
			if (density == 0)
				m[i] &= t_rand(&seed);
			else if (density == 1)
				m[i] |= t_rand(&seed);
			else if (density == 2 && (t_rand(&seed) & 1))
				m[i] = t_rand(&seed) & 1 ? ~0ULL : 0;
		}
		to_bools(m, b);

		for (i = 0; i < MR_SACK_BITS; i++)
			assert_int_equal(mr_map_test(m, i), b[i]);

		memcpy(m2, m, sizeof(m2));
		mr_map_shr(m2, n);
		to_bools(m2, got);
		for (i = 0; i < MR_SACK_BITS; i++)
			want[i] = i + n < MR_SACK_BITS ? b[i + n] : false;
		assert_memory_equal(got, want, sizeof(want));

		memcpy(m2, m, sizeof(m2));
		mr_map_shl(m2, n);
		to_bools(m2, got);
		for (i = 0; i < MR_SACK_BITS; i++)
			want[i] = i >= n ? b[i - n] : false;
		assert_memory_equal(got, want, sizeof(want));

		for (run = 0; run < MR_SACK_BITS && b[run]; run++)
			;
		assert_int_equal(mr_map_run(m), run);

		from = (u32)(t_rand(&seed) % (MR_SACK_BITS + 2));
		for (int set = 0; set < 2; set++) {
			for (i = from; i < MR_SACK_BITS && b[i] != (bool)set; i++)
				;
			assert_int_equal(mr_map_find(m, from, set),
					 i < MR_SACK_BITS ? i : MR_SACK_BITS);
		}
		assert_int_equal(mr_map_empty(m),
				 !m[0] && !m[1] && !m[2] && !m[3]);
	}
}

/* ---- rdasm --------------------------------------------------------- */

static void test_in_order(void **state)
{
	const u32 len = 1 << 20, mtu = 1024;
	u32 off, n, done = 0, sent_end;
	struct mr_rdasm r;

	(void)state;
	mr_rdasm_init(&r, len);
	assert_int_equal(mr_rdasm_first(&r), MR_RDASM_WINDOW);
	/* Nothing arrived: the one missing run is the whole first range. */
	assert_true(mr_rdasm_gap(&r, 0, &off, &n));
	assert_int_equal(off, 0);
	assert_int_equal(n, MR_RDASM_WINDOW);
	/* Nothing more while the whole window is outstanding. */
	assert_false(mr_rdasm_next(&r, &off, &n));
	sent_end = r.req_end;
	for (u32 o = 0; o < len; o += mtu) {
		assert_true(o < sent_end);
		assert_int_equal(mr_rdasm_check(&r, o, mtu), MR_RDASM_PLACE);
		done += mr_rdasm_mark(&r, o, mtu);
		assert_int_equal(done, o + mtu);
		assert_int_equal(mr_rdasm_check(&r, o, mtu), MR_RDASM_DUP);
		if (mr_rdasm_next(&r, &off, &n)) {
			/* At most half a window outstanding, then up to one. */
			assert_true(sent_end - r.done <= MR_RDASM_WINDOW / 2);
			assert_int_equal(off, sent_end);
			assert_int_equal(off + n, r.done + MR_RDASM_WINDOW < len ?
					 r.done + MR_RDASM_WINDOW : len);
			assert_true(n <= MR_READ_RANGE_MAX);
			mr_rdasm_requested(&r, off + n);
			sent_end = off + n;
		}
		assert_true(mr_rdasm_outstanding(&r) <= MR_RDASM_WINDOW);
	}
	assert_true(mr_rdasm_complete(&r));
	assert_false(mr_rdasm_next(&r, &off, &n));
	assert_false(mr_rdasm_gap(&r, 0, &off, &n));
}

/*
 * Split (MR-MP-28): whole ranges of the split length back to back while
 * the window holds them, the next one once a whole one fits again, never
 * a sliver; the READ's rest last.
 */
static void test_split(void **state)
{
	const u32 len = 100000, range = 8192, mtu = 1024;
	u32 off, n, sent_end, ranges = 1;
	struct mr_rdasm r;

	(void)state;
	mr_rdasm_init(&r, len);
	mr_rdasm_split(&r, range);
	assert_int_equal(mr_rdasm_first(&r), range);
	sent_end = range;
	for (u32 o = 0; o <= len; o += mtu) {
		if (o < len) {
			assert_true(o < sent_end);
			assert_int_equal(mr_rdasm_check(&r, o, MR_MIN(mtu, len - o)),
					 MR_RDASM_PLACE);
			mr_rdasm_mark(&r, o, MR_MIN(mtu, len - o));
		}
		while (mr_rdasm_next(&r, &off, &n)) {
			assert_int_equal(off, sent_end);
			assert_true(n == range || off + n == len);
			assert_true(off + n <= r.done + MR_RDASM_WINDOW);
			mr_rdasm_requested(&r, off + n);
			sent_end = off + n;
			ranges++;
		}
		/* full again: no room for another whole range */
		assert_true(sent_end == len ||
			    sent_end + range > r.done + MR_RDASM_WINDOW);
	}
	assert_true(mr_rdasm_complete(&r));
	assert_int_equal(ranges, (len + range - 1) / range);
	/* clamped: a unit at least, the window at most */
	mr_rdasm_init(&r, len);
	mr_rdasm_split(&r, 1);
	assert_int_equal(r.range, 0);
	mr_rdasm_split(&r, MR_RDASM_UNIT + 7);
	assert_int_equal(r.range, MR_RDASM_UNIT);
	mr_rdasm_split(&r, 1U << 30);
	assert_int_equal(r.range, MR_RDASM_WINDOW);
	assert_int_equal(mr_rdasm_first(&r), MR_RDASM_WINDOW);
}

static void test_check_rules(void **state)
{
	struct mr_rdasm r;
	u32 off, n;

	(void)state;
	mr_rdasm_init(&r, 1000);
	assert_int_equal(mr_rdasm_first(&r), 1000);
	/* Only whole units, except the READ's last chunk (MR-PLACE-6). */
	assert_int_equal(mr_rdasm_check(&r, 0, 0), MR_RDASM_BAD);
	assert_int_equal(mr_rdasm_check(&r, 0, 100), MR_RDASM_BAD);
	assert_int_equal(mr_rdasm_check(&r, 100, 256), MR_RDASM_BAD);
	assert_int_equal(mr_rdasm_check(&r, 768, 256), MR_RDASM_BAD);
	assert_int_equal(mr_rdasm_check(&r, 768, 232), MR_RDASM_PLACE);
	assert_int_equal(mr_rdasm_check(&r, 0xffffff00U, 512), MR_RDASM_BAD);
	assert_int_equal(mr_rdasm_mark(&r, 768, 232), 0);
	assert_int_equal(mr_rdasm_check(&r, 768, 232), MR_RDASM_DUP);
	assert_int_equal(mr_rdasm_check(&r, 512, 256), MR_RDASM_PLACE);
	assert_int_equal(mr_rdasm_mark(&r, 512, 256), 0);
	/* Something arrived: the missing run stops where it did. */
	assert_true(mr_rdasm_gap(&r, 0, &off, &n));
	assert_int_equal(off, 0);
	assert_int_equal(n, 512);
	assert_int_equal(mr_rdasm_check(&r, 0, 512), MR_RDASM_PLACE);
	assert_int_equal(mr_rdasm_mark(&r, 0, 512), 1000);
	assert_true(mr_rdasm_complete(&r));
	assert_int_equal(mr_rdasm_check(&r, 0, 256), MR_RDASM_DUP);

	/* Beyond what was requested: not placed. */
	mr_rdasm_init(&r, 1 << 20);
	mr_rdasm_first(&r);
	assert_int_equal(mr_rdasm_check(&r, MR_RDASM_WINDOW - 1024, 1024),
			 MR_RDASM_PLACE);
	assert_int_equal(mr_rdasm_check(&r, MR_RDASM_WINDOW, 1024),
			 MR_RDASM_BAD);
}

/* The missing runs of a READ with PMTU 1024 whose chunks k are lost. */
static void test_gaps_exact(void **state)
{
	const u32 mtu = 1024;
	static const u32 lost[] = { 3, 4, 9, 20, 21, 22, 63 };
	static const u32 want[][2] = { { 3, 2 }, { 9, 1 }, { 20, 3 }, { 63, 1 } };
	struct mr_rdasm r;
	u32 off, n, from = 0, k, i = 0;

	(void)state;
	mr_rdasm_init(&r, 64 * mtu);
	mr_rdasm_first(&r);
	/* Before anything arrived, the whole range is one run. */
	assert_true(mr_rdasm_gap(&r, 0, &off, &n));
	assert_int_equal(off, 0);
	assert_int_equal(n, 64 * mtu);
	for (k = 0; k < 64; k++) {
		bool l = false;

		for (u32 j = 0; j < MR_ARRAY_SIZE(lost); j++)
			l |= lost[j] == k;
		if (!l)
			mr_rdasm_mark(&r, k * mtu, mtu);
	}
	assert_int_equal(r.done, 3 * mtu);
	while (mr_rdasm_gap(&r, from, &off, &n)) {
		assert_true(i < MR_ARRAY_SIZE(want));
		assert_int_equal(off, want[i][0] * mtu);
		assert_int_equal(n, want[i][1] * mtu);
		from = off + n;
		i++;
	}
	assert_int_equal(i, MR_ARRAY_SIZE(want));
	/* A later start skips the runs before it. */
	assert_true(mr_rdasm_gap(&r, 10 * mtu, &off, &n));
	assert_int_equal(off, 20 * mtu);
}

/*
 * Random PMTUs, lengths, arrival orders and losses: the runs mr_rdasm_gap()
 * walks and the bytes marked partition [done, req_end), the runs are
 * maximal and in order, and re-requesting exactly the runs completes the
 * READ.
 */
static void test_gaps_random(void **state)
{
	static const u32 mtus[] = { 256, 512, 1024, 2048, 4096 };
	u64 seed = 99;

	(void)state;
	for (int iter = 0; iter < 500; iter++) {
		u32 mtu = mtus[t_rand(&seed) % MR_ARRAY_SIZE(mtus)];
		u32 len = 1 + (u32)(t_rand(&seed) % (300 * 1024));
		static bool got[300 * 1024 / 256 + 1];
		u32 chunks, off, n, out = 0, rounds = 0;
		struct mr_rdasm r;

		memset(got, 0, sizeof(got));
		mr_rdasm_init(&r, len);
		out += mr_rdasm_first(&r);
		chunks = (len + mtu - 1) / mtu;
		while (!mr_rdasm_complete(&r)) {
			u32 from = r.done, covered = r.done;

			assert_true(++rounds < 10000);
			/* Each requested, missing chunk arrives with p = 3/4. */
			for (u32 c = 0; c < chunks; c++) {
				u32 o = c * mtu, l = len - o < mtu ? len - o : mtu;
				int v = mr_rdasm_check(&r, o, l);

				if (o >= r.req_end) {
					assert_int_equal(v, MR_RDASM_BAD);
					continue;
				}
				assert_int_equal(v, got[c] ? MR_RDASM_DUP :
						 MR_RDASM_PLACE);
				if (got[c] || t_rand(&seed) % 4 == 0)
					continue;
				got[c] = true;
				out -= mr_rdasm_mark(&r, o, l);
			}
			assert_int_equal(out, r.req_end - r.done);
			/* The runs: disjoint, ordered, maximal, exactly the gaps. */
			while (mr_rdasm_gap(&r, from, &off, &n)) {
				assert_true(n > 0);
				assert_true(off >= from);
				for (u32 o = covered; o < off; o += mtu)
					assert_true(got[o / mtu]);
				for (u32 o = off; o < off + n; o += mtu)
					assert_false(got[o / mtu]);
				assert_true(off + n == r.req_end ||
					    got[(off + n) / mtu]);
				assert_true(off % mtu == 0);
				covered = off + n;
				from = off + n;
			}
			for (u32 o = covered; o < r.req_end; o += mtu)
				assert_true(got[o / mtu]);
			if (mr_rdasm_next(&r, &off, &n)) {
				assert_int_equal(off, r.req_end);
				mr_rdasm_requested(&r, off + n);
				out += n;
			}
		}
		assert_int_equal(out, 0);
		for (u32 c = 0; c < chunks; c++)
			assert_true(got[c]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_map_ops),
		cmocka_unit_test(test_in_order),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_check_rules),
		cmocka_unit_test(test_gaps_exact),
		cmocka_unit_test(test_gaps_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
