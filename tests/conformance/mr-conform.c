// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mr-conform: the MetaRoCE conformance tester (black box, packet level).
 *
 * It plays the peer of a device under test (DUT): the DUT host runs
 * mr-conform-agent (verbs only), which creates and drives QPs on the
 * tester's requests; the tester owns the MetaRoCE UDP port of its own host,
 * sends crafted packets built by the core's codec and checks every packet
 * of the DUT against the spec (Documentation/metaroce/spec.rst) byte by
 * byte. How to run it: Documentation/metaroce/conformance.rst.
 *
 *   mr-conform --agent HOST[:PORT] [--dut IPV4] [--udp-port N]
 *              [--report FILE.rst] [--spec spec.rst] [--filter TEXT]
 *              [--counter SPEC=IMPL]... [--slow X] [-v]
 *   mr-conform --list
 *   mr-conform --selftest [--vectors FILE]   (default ./vectors.txt)
 *
 * Output: TAP on stdout ("ok N - AREA/name [IDs]"; a known deviation of
 * the implementation under CI is "not ok ... # TODO deviation: ..."; a
 * case that could not observe what it checks is "ok ... # SKIP ..."), a
 * final "mr-conform: N passed, N failed" line, exit status 0 only if no
 * case failed. The report lists, per requirement ID, pass / fail /
 * deviation / not run and the cases that cover it.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "mr-conform.h"

struct copts O = { .udp_port = MR_UDP_PORT, .slow = 1.0,
		    .vectors = "vectors.txt" };

void diag(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("# ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	fflush(stdout);
}

void fail_at(struct tctx *t, int line, const char *fmt, ...)
{
	char m[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m, sizeof(m), fmt, ap);
	va_end(ap);
	if (!t->nfail++)
		snprintf(t->first, sizeof(t->first), "%s", m);
	if (t->nfail <= 12)
		diag("FAIL (line %d): %s", line, m);
}

void not_run(struct tctx *t, const char *why)
{
	t->skip = why;
}

/* ------------------------------------------------------------------ */
/* Requirement-ID ranges                                              */

/* One "MR-AREA-N" or "MR-AREA-N..M" in @s[0..n). */
static bool id_one(const char *s, size_t n, void (*cb)(const char *, void *),
		   void *arg)
{
	char area[16], id[40];
	size_t i = 3, a = 0;
	unsigned long lo, hi;
	char *e;

	if (n < 6 || strncmp(s, "MR-", 3))
		return false;
	while (i < n && isupper((unsigned char)s[i]) && a < sizeof(area) - 1)
		area[a++] = s[i++];
	area[a] = 0;
	if (!a || i >= n || s[i++] != '-' || i >= n || !isdigit((unsigned char)s[i]))
		return false;
	lo = strtoul(s + i, &e, 10);
	hi = lo;
	if ((size_t)(e - s) < n) {
		if ((size_t)(e - s) + 2 >= n || e[0] != '.' || e[1] != '.' ||
		    !isdigit((unsigned char)e[2]))
			return false;
		hi = strtoul(e + 2, &e, 10);
	}
	if ((size_t)(e - s) != n || !lo || hi < lo || hi - lo > 200 || hi > 9999)
		return false;
	if (cb)
		for (unsigned long k = lo; k <= hi; k++) {
			snprintf(id, sizeof(id), "MR-%s-%lu", area, k);
			cb(id, arg);
		}
	return true;
}

bool ids_expand(const char *s, void (*cb)(const char *id, void *arg), void *arg)
{
	const char *p = s;
	int n = 0;

	if (!s)
		return false;
	/* Validate all before reporting any. */
	for (int pass = 0; pass < 2; pass++) {
		p = s;
		n = 0;
		for (;;) {
			size_t l;

			while (*p == ' ')
				p++;
			l = strcspn(p, ",");
			while (l && p[l - 1] == ' ')
				l--;
			if (!id_one(p, l, pass ? cb : NULL, arg))
				return false;
			n++;
			p += strcspn(p, ",");
			if (!*p)
				break;
			p++;
		}
	}
	return n > 0;
}

/* ------------------------------------------------------------------ */
/* Registry, results, report                                          */

enum res { R_PASS, R_FAIL, R_XFAIL, R_SKIP };
static const char *const res_name[] = { "pass", "fail", "deviation", "not run" };

struct result {
	const struct tcase *tc;
	enum res r;
	char why[256];
};

#define MAX_CASES 128
static struct result results[MAX_CASES];
static unsigned int n_results;

#define MAX_IDS 512
static struct reqrow {
	char id[24];
	enum res r;
	bool any;
	char cases[512];
} rows[MAX_IDS];
static unsigned int n_rows;

static struct reqrow *row_of(const char *id)
{
	for (unsigned int i = 0; i < n_rows; i++)
		if (!strcmp(rows[i].id, id))
			return &rows[i];
	if (n_rows == MAX_IDS)
		return NULL;
	snprintf(rows[n_rows].id, sizeof(rows[0].id), "%s", id);
	return &rows[n_rows++];
}

static void row_add(const char *id, void *arg)
{
	const struct result *r = arg;
	struct reqrow *w = row_of(id);
	size_t l;

	if (!w)
		return;
	/* fail > deviation > pass > not run */
	if (!w->any || r->r == R_FAIL ||
	    (r->r == R_XFAIL && w->r != R_FAIL) ||
	    (r->r == R_PASS && w->r == R_SKIP))
		w->r = r->r;
	w->any = true;
	l = strlen(w->cases);
	snprintf(w->cases + l, sizeof(w->cases) - l, "%s%s/%s (%s)", l ? ", " : "",
		 r->tc->area, r->tc->name, res_name[r->r]);
}

static void spec_ids(const char *path)
{
	char line[4096];
	FILE *f = fopen(path, "r");

	if (!f) {
		diag("--spec %s: cannot open; the report lists covered IDs only", path);
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		char id[24];
		struct reqrow *w;

		if (sscanf(line, "**MR-%18[A-Z0-9-]**", id + 3) != 1)
			continue;
		memcpy(id, "MR-", 3);
		w = row_of(id);
		if (w && !w->any)
			w->r = R_SKIP;
	}
	fclose(f);
}

static int row_cmp(const void *a, const void *b)
{
	const struct reqrow *x = a, *y = b;
	size_t lx = strrchr(x->id, '-') - x->id, ly = strrchr(y->id, '-') - y->id;
	int c = strncmp(x->id, y->id, lx < ly ? lx : ly);

	if (c || lx != ly)
		return c ? c : (int)lx - (int)ly;
	return atoi(x->id + lx + 1) - atoi(y->id + ly + 1);
}

static void write_report(const char *path, unsigned int pass, unsigned int fail,
			 unsigned int xfail, unsigned int skip)
{
	FILE *f = fopen(path, "w");
	unsigned int cnt[4] = { 0 };

	if (!f) {
		diag("cannot write the report %s", path);
		return;
	}
	for (unsigned int i = 0; i < n_results; i++)
		ids_expand(results[i].tc->ids, row_add, &results[i]);
	if (O.report && getenv("MR_CONFORM_SPEC"))
		spec_ids(getenv("MR_CONFORM_SPEC"));
	qsort(rows, n_rows, sizeof(rows[0]), row_cmp);
	for (unsigned int i = 0; i < n_rows; i++)
		cnt[rows[i].r]++;
	fprintf(f, ".. SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause\n\n"
		   ".. Written by mr-conform (tests/conformance); do not edit.\n\n");
	fprintf(f, "===========================\nMetaRoCE conformance report\n===========================\n\n");
	fprintf(f, "Generated by ``mr-conform`` (tests/conformance) against the DUT at\n"
		   "%u.%u.%u.%u.  Cases: %u passed, %u failed, %u known deviations,\n"
		   "%u not run.  Requirements: %u pass, %u fail, %u deviation,\n"
		   "%u not run (no case, or no case could observe it).\n\n",
		   ((uint8_t *)&DUT.ip)[0], ((uint8_t *)&DUT.ip)[1],
		   ((uint8_t *)&DUT.ip)[2], ((uint8_t *)&DUT.ip)[3],
		   pass, fail, xfail, skip, cnt[R_PASS], cnt[R_FAIL], cnt[R_XFAIL],
		   cnt[R_SKIP]);
	fprintf(f, "Cases\n-----\n\n.. list-table::\n   :header-rows: 1\n\n"
		   "   * - Case\n     - Requirements\n     - Result\n");
	for (unsigned int i = 0; i < n_results; i++) {
		const struct result *r = &results[i];

		fprintf(f, "   * - %s/%s\n     - %s\n     - %s%s%s\n", r->tc->area,
			r->tc->name, r->tc->ids, res_name[r->r], r->why[0] ? ": " : "",
			r->why);
	}
	fprintf(f, "\nRequirements\n------------\n\n.. list-table::\n   :header-rows: 1\n\n"
		   "   * - ID\n     - Result\n     - Cases\n");
	for (unsigned int i = 0; i < n_rows; i++)
		fprintf(f, "   * - %s\n     - %s\n     - %s\n", rows[i].id,
			res_name[rows[i].r], rows[i].any ? rows[i].cases : "(no case)");
	fclose(f);
}

static const struct {
	const struct tcase *t;
	const unsigned int *n;
} tables[] = {
	{ cases_req, &n_cases_req },	/* VER first: the HELLO checks */
	{ cases_resp, &n_cases_resp },
	{ cases_ud, &n_cases_ud },
	{ cases_uc, &n_cases_uc },
	{ cases_wire, &n_cases_wire },
	{ cases_loss, &n_cases_loss },
	{ cases_mal, &n_cases_mal },
	{ cases_win, &n_cases_win },
	/* keep last: its ICMP message may lower the DUT's route MTU */
	{ cases_last, &n_cases_last },
};

static bool selected(const struct tcase *c)
{
	char full[128];

	snprintf(full, sizeof(full), "%s/%s", c->area, c->name);
	return !O.filter || strstr(full, O.filter);
}

static int run_all(void)
{
	unsigned int n = 0, pass = 0, fail = 0, xfail = 0, skip = 0;

	for (size_t k = 0; k < MR_ARRAY_SIZE(tables); k++)
		for (unsigned int i = 0; i < *tables[k].n; i++)
			n += selected(&tables[k].t[i]);
	agent_open();
	net_open();
	dut_setup();
	printf("1..%u\n", n);
	n = 0;
	for (size_t k = 0; k < MR_ARRAY_SIZE(tables); k++)
		for (unsigned int i = 0; i < *tables[k].n; i++) {
			const struct tcase *c = &tables[k].t[i];
			struct tctx t = { .tc = c };
			struct result *r;
			double t0;

			if (!selected(c))
				continue;
			r = &results[n_results < MAX_CASES ? n_results++ : 0];
			n++;
			t0 = now_s();
			c->fn(&t);
			r->tc = c;
			r->why[0] = 0;
			if (t.nfail && c->deviation) {
				r->r = R_XFAIL;
				snprintf(r->why, sizeof(r->why), "%s", c->deviation);
				printf("not ok %u - %s/%s [%s] # TODO deviation: %s\n", n,
				       c->area, c->name, c->ids, c->deviation);
				xfail++;
			} else if (t.nfail) {
				r->r = R_FAIL;
				snprintf(r->why, sizeof(r->why), "%s", t.first);
				printf("not ok %u - %s/%s [%s]\n", n, c->area, c->name, c->ids);
				fail++;
			} else if (t.skip) {
				r->r = R_SKIP;
				snprintf(r->why, sizeof(r->why), "%s", t.skip);
				printf("ok %u - %s/%s [%s] # SKIP %s\n", n, c->area, c->name,
				       c->ids, t.skip);
				skip++;
			} else {
				r->r = R_PASS;
				printf("ok %u - %s/%s [%s]\n", n, c->area, c->name, c->ids);
				if (c->deviation)
					diag("the deviation recorded for this case is no longer seen: %s",
					     c->deviation);
				pass++;
			}
			diag("%s/%s took %.1f s", c->area, c->name, now_s() - t0);
			fflush(stdout);
		}
	agent_close();
	if (O.report)
		write_report(O.report, pass, fail, xfail, skip);
	diag("%u known deviations (TODO), %u not run (SKIP)", xfail, skip);
	printf("mr-conform: %u passed, %u failed\n", pass, fail);
	return fail ? 1 : 0;
}

static void list_cases(void)
{
	for (size_t k = 0; k < MR_ARRAY_SIZE(tables); k++)
		for (unsigned int i = 0; i < *tables[k].n; i++) {
			const struct tcase *c = &tables[k].t[i];

			printf("%s/%s\t%s%s%s\n", c->area, c->name, c->ids,
			       c->deviation ? "\tdeviation: " : "",
			       c->deviation ? c->deviation : "");
		}
}

/* ------------------------------------------------------------------ */
/* --selftest: host only                                              */

struct idbuf {
	char s[512];
};

static void id_cat(const char *id, void *arg)
{
	struct idbuf *b = arg;
	size_t l = strlen(b->s);

	snprintf(b->s + l, sizeof(b->s) - l, "%s%s", l ? " " : "", id);
}

static int st_fail;

static void st_expect(bool c, const char *what)
{
	printf("%s - selftest: %s\n", c ? "ok" : "not ok", what);
	st_fail += !c;
}

static void st_ids(const char *in, const char *want)
{
	struct idbuf b = { "" };
	bool ok = ids_expand(in, id_cat, &b);
	char what[256];

	snprintf(what, sizeof(what), "ids \"%s\" -> %s", in, want ? want : "refused");
	st_expect(want ? ok && !strcmp(b.s, want) : !ok && !b.s[0], what);
	if (want && (!ok || strcmp(b.s, want)))
		diag("got \"%s\"", b.s);
}

/* A golden ACK or NACK through the codec, then through check_ack(). */
static int st_ack_run(const struct mr_pkt *p, const struct ack_expect *e)
{
	struct rxpkt r;
	uint8_t b[RX_BUF];
	struct tctx t = { 0 };
	int n = mr_pkt_encode(p, b, sizeof(b));

	if (n < 0)
		return -1;
	rx_parse(&r, b, (uint32_t)n);
	printf("# (expected diagnostics follow for the mutated packets)\n");
	check_ack(&t, "golden", &r, 0x123, 0x456, e);
	return t.nfail;
}

int run_selftest(void)
{
	static const uint32_t sacked[] = { 2, 5 };
	struct ack_expect e = { .cum = 0x10, .msn = 3, .ts_echo = 0xABCD, .path = 7,
				.sacked = sacked, .n_sacked = 2 };
	struct mr_pkt p = { .opcode = MR_OP_ACK, .path = 7, .dqpn = 0x123,
			    .sqpn = 0x456, .ts = 99 };
	unsigned int total = 0;

	st_ids("MR-REL-12", "MR-REL-12");
	st_ids("MR-REL-12, MR-REL-14..16", "MR-REL-12 MR-REL-14 MR-REL-15 MR-REL-16");
	st_ids("MR-VER-9..10,MR-ICRC-4", "MR-VER-9 MR-VER-10 MR-ICRC-4");
	st_ids("MR-REL-16..14", NULL);
	st_ids("MR-REL-", NULL);
	st_ids("REL-12", NULL);
	st_ids("MR-REL-12, ", NULL);
	st_ids("MR-rel-12", NULL);
	st_ids("MR-REL-1..999", NULL);
	st_ids("MR-REL-12.13", NULL);
	st_ids("", NULL);

	p.akh.cum_psn = 0x10;
	p.akh.msn = 3;
	p.akh.ts_echo = 0xABCD;
	p.akh.credit = MR_CREDIT_UNLIMITED;
	p.akh.sack[0] = (1ull << 2) | (1ull << 5);
	st_expect(st_ack_run(&p, &e) == 0, "golden ACK passes check_ack");
	{
		struct mr_pkt m = p;

		m.akh.cum_psn = 0x11;
		st_expect(st_ack_run(&m, &e) > 0, "ACK with a wrong cum_psn fails");
		m = p;
		m.path = 8;
		st_expect(st_ack_run(&m, &e) > 0, "ACK without the path echo fails");
		m = p;
		m.akh.sack[3] |= 1ull << 63;
		st_expect(st_ack_run(&m, &e) > 0, "ACK with an extra SACK bit fails");
		m = p;
		m.sqpn = 0x457;
		st_expect(st_ack_run(&m, &e) > 0, "ACK from another QPN fails");
		m = p;
		m.flags = MR_F_ECE;
		st_expect(st_ack_run(&m, &e) > 0, "ACK with ECE and no CE sent fails");
		m = p;
		m.akh.ts_echo++;
		st_expect(st_ack_run(&m, &e) > 0, "ACK with a wrong ts_echo fails");
		m = p;
		m.opcode = MR_OP_NACK;
		m.nkh.reason = MR_NACK_REMOTE_ACCESS;
		m.nkh.nack_psn = 0x10;
		st_expect(st_ack_run(&m, &e) > 0, "a NACK where an ACK is due fails");
		e.nack_reason = MR_NACK_REMOTE_ACCESS;
		e.nack_psn = 0x10;
		st_expect(st_ack_run(&m, &e) == 0, "golden NACK REMOTE_ACCESS passes");
		m.nkh.nack_psn = 0x11;
		st_expect(st_ack_run(&m, &e) > 0, "NACK with a wrong nack_psn fails");
	}
	{
		uint8_t a[64], b[64];

		mrc_pat_fill(a, 1, 0, 64);
		mrc_pat_fill(b, 2, 0, 64);
		st_expect(memcmp(a, b, 64) && mrc_pat(1, 63) == a[63] &&
			  mrc_hash(a, 64) != mrc_hash(b, 64),
			  "patterns differ per seed, hash tells them apart");
	}
	for (size_t k = 0; k < MR_ARRAY_SIZE(tables); k++)
		for (unsigned int i = 0; i < *tables[k].n; i++) {
			const struct tcase *c = &tables[k].t[i];
			char what[160];

			snprintf(what, sizeof(what), "case %s/%s: IDs \"%s\" parse",
				 c->area, c->name, c->ids);
			st_expect(ids_expand(c->ids, NULL, NULL), what);
			total++;
		}
	st_expect(total >= 15, "at least 15 cases registered");
	{
		unsigned int nv;
		char what[96];
		int nf = vectors_check(O.vectors, &nv);

		snprintf(what, sizeof(what),
			 "%u golden vectors of %s decode to their fields and encode back",
			 nv, O.vectors);
		st_expect(!nf && nv >= 17, what);
	}
	printf("mr-conform-selftest: %s\n", st_fail ? "FAILED" : "all passed");
	return st_fail ? 1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "agent", required_argument, NULL, 'a' },
		{ "dut", required_argument, NULL, 'D' },
		{ "udp-port", required_argument, NULL, 'u' },
		{ "report", required_argument, NULL, 'r' },
		{ "spec", required_argument, NULL, 's' },
		{ "filter", required_argument, NULL, 'f' },
		{ "counter", required_argument, NULL, 'c' },
		{ "slow", required_argument, NULL, 'S' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "list", no_argument, NULL, 'l' },
		{ "selftest", no_argument, NULL, 'T' },
		{ "vectors", required_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	bool selftest = false;
	int c;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((c = getopt_long(argc, argv, "v", lo, NULL)) != -1) {
		switch (c) {
		case 'a': O.agent = optarg; break;
		case 'D': O.dut = optarg; break;
		case 'u': O.udp_port = atoi(optarg); break;
		case 'r': O.report = optarg; break;
		case 's': setenv("MR_CONFORM_SPEC", optarg, 1); break;
		case 'f': O.filter = optarg; break;
		case 'c': counter_map_add(optarg); break;
		case 'S': O.slow = atof(optarg); break;
		case 'v': O.verbose++; break;
		case 'l': list_cases(); return 0;
		case 'T': selftest = true; break;
		case 'V': O.vectors = optarg; break;
		default:
			fprintf(stderr, "usage: see the comment at the top of mr-conform.c\n");
			return 2;
		}
	}
	if (selftest)
		return run_selftest();
	if (!O.agent || O.udp_port < 1 || O.udp_port > 65535 || O.slow < 1)
		fprintf(stderr, "mr-conform: --agent HOST[:PORT] is required\n"), exit(2);
	if (O.dut && inet_pton(AF_INET, O.dut, &DUT.ip) != 1)
		fprintf(stderr, "mr-conform: --dut %s: an IPv4 address\n", O.dut), exit(2);
	return run_all();
}
