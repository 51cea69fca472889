// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mr-verify: time, output and failure reports; the control channel
 * (the TCP socket of the handshake) that paces the run and carries a failure
 * to the peer.
 */
#include "mr-verify.h"

const char *const ctl_name[] = {
	"?", "SYNC", "PHASE", "READY", "DONE", "RESULT", "REUSE",
};

/* ------------------------------------------------------------------ */
/* Time, output, failure                                              */

double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* The clock of /proc/uptime, which scripts read to line events up. */
double uptime_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_BOOTTIME, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

double elapsed_s(struct mrv *run)
{
	return now_s() - (run->s.t0.tv_sec + run->s.t0.tv_nsec / 1e9);
}

/* One line on stdout, flushed: the peer's log interleaves with it. */
static void say_line(struct mrv *run, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
static void say_line(struct mrv *run, const char *fmt, va_list ap)
{
	printf("mr-verify[%s]: ", run->s.role);
	vprintf(fmt, ap);
	putchar('\n');
	fflush(stdout);
}

void say(struct mrv *run, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say_line(run, fmt, ap);
	va_end(ap);
}

/* Only with -v. */
void vsay(struct mrv *run, const char *fmt, ...)
{
	va_list ap;

	if (!run->o.verbose)
		return;
	va_start(ap, fmt);
	say_line(run, fmt, ap);
	va_end(ap);
}

void setup_error(struct mrv *run, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "mr-verify[%s]: error: ", run->s.role ? run->s.role : "?");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static const struct {
	int status;
	const char *name;
} wc_names[] = {
	{ IBV_WC_SUCCESS, "SUCCESS" },
	{ IBV_WC_LOC_LEN_ERR, "LOC_LEN_ERR" },
	{ IBV_WC_LOC_QP_OP_ERR, "LOC_QP_OP_ERR" },
	{ IBV_WC_LOC_EEC_OP_ERR, "LOC_EEC_OP_ERR" },
	{ IBV_WC_LOC_PROT_ERR, "LOC_PROT_ERR" },
	{ IBV_WC_WR_FLUSH_ERR, "WR_FLUSH_ERR" },
	{ IBV_WC_MW_BIND_ERR, "MW_BIND_ERR" },
	{ IBV_WC_BAD_RESP_ERR, "BAD_RESP_ERR" },
	{ IBV_WC_LOC_ACCESS_ERR, "LOC_ACCESS_ERR" },
	{ IBV_WC_REM_INV_REQ_ERR, "REM_INV_REQ_ERR" },
	{ IBV_WC_REM_ACCESS_ERR, "REM_ACCESS_ERR" },
	{ IBV_WC_REM_OP_ERR, "REM_OP_ERR" },
	{ IBV_WC_RETRY_EXC_ERR, "RETRY_EXC_ERR" },
	{ IBV_WC_RNR_RETRY_EXC_ERR, "RNR_RETRY_EXC_ERR" },
	{ IBV_WC_LOC_RDD_VIOL_ERR, "LOC_RDD_VIOL_ERR" },
	{ IBV_WC_REM_INV_RD_REQ_ERR, "REM_INV_RD_REQ_ERR" },
	{ IBV_WC_REM_ABORT_ERR, "REM_ABORT_ERR" },
	{ IBV_WC_INV_EECN_ERR, "INV_EECN_ERR" },
	{ IBV_WC_INV_EEC_STATE_ERR, "INV_EEC_STATE_ERR" },
	{ IBV_WC_FATAL_ERR, "FATAL_ERR" },
	{ IBV_WC_RESP_TIMEOUT_ERR, "RESP_TIMEOUT_ERR" },
	{ IBV_WC_GENERAL_ERR, "GENERAL_ERR" },
	{ IBV_WC_TM_ERR, "TM_ERR" },
	{ IBV_WC_TM_RNDV_INCOMPLETE, "TM_RNDV_INCOMPLETE" },
};

const char *wc_name(int status)
{
	for (size_t i = 0; i < sizeof(wc_names) / sizeof(wc_names[0]); i++)
		if (wc_names[i].status == status)
			return wc_names[i].name;
	return "UNKNOWN";
}

int parse_wc_status(const char *s)
{
	char *end;
	long v;

	if (!strncasecmp(s, "IBV_WC_", 7))
		s += 7;
	for (size_t i = 0; i < sizeof(wc_names) / sizeof(wc_names[0]); i++)
		if (!strcasecmp(s, wc_names[i].name))
			return wc_names[i].status;
	v = strtol(s, &end, 0);
	if (*s && !*end && v > 0 && v < 256)
		return (int)v;
	return -1;
}

/* ------------------------------------------------------------------ */
/* Control channel                                                    */



void put32(uint8_t **p, uint32_t v)
{
	v = htobe32(v);
	memcpy(*p, &v, 4);
	*p += 4;
}

void put64(uint8_t **p, uint64_t v)
{
	v = htobe64(v);
	memcpy(*p, &v, 8);
	*p += 8;
}

uint32_t get32(const uint8_t **p)
{
	uint32_t v;

	memcpy(&v, *p, 4);
	*p += 4;
	return be32toh(v);
}

uint64_t get64(const uint8_t **p)
{
	uint64_t v;

	memcpy(&v, *p, 8);
	*p += 8;
	return be64toh(v);
}

/* Write all of buf, waiting at most tmo seconds. 0 or -errno. */
int sock_write(struct mrv *run, const void *buf, size_t len, int tmo)
{
	const uint8_t *p = buf;
	double end = now_s() + tmo;

	while (len) {
		struct pollfd pfd = { .fd = run->s.sock, .events = POLLOUT };
		int ms = (int)((end - now_s()) * 1000);
		ssize_t n;

		if (ms <= 0)
			return -ETIMEDOUT;
		if (poll(&pfd, 1, ms) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		n = send(run->s.sock, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= n;
	}
	return 0;
}

/* Read exactly len bytes within tmo seconds. 0, -ETIMEDOUT, -EPIPE (EOF). */
int sock_read(struct mrv *run, void *buf, size_t len, int tmo)
{
	uint8_t *p = buf;
	double end = now_s() + tmo;

	while (len) {
		struct pollfd pfd = { .fd = run->s.sock, .events = POLLIN };
		int ms = (int)((end - now_s()) * 1000);
		ssize_t n;

		if (ms <= 0)
			return -ETIMEDOUT;
		if (poll(&pfd, 1, ms) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		n = recv(run->s.sock, p, len, MSG_DONTWAIT);
		if (n == 0)
			return -EPIPE;
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= n;
	}
	return 0;
}

int ctl_tmo(struct mrv *run)
{
	/* The peer may itself be waiting a full watchdog on its CQ. */
	return 2 * run->o.watchdog + 30;
}

int ctl_send(struct mrv *run, const struct ctl *c)
{
	uint8_t buf[CTL_LEN] = { 0 }, *p = buf;

	put32(&p, c->type);
	put32(&p, c->fail);
	put32(&p, c->wc_status);
	put32(&p, 0);
	for (int i = 0; i < 4; i++)
		put64(&p, c->v[i]);
	memcpy(p, c->text, CTL_TEXT);
	buf[CTL_LEN - 1] = 0;
	return sock_write(run, buf, CTL_LEN, ctl_tmo(run));
}


/* The ending --expect-error asks for: reported without "FAIL". */
static const char *fail_tag(struct mrv *run, int wc_status)
{
	return run->o.expect_err >= 0 && wc_status == run->o.expect_err ? "" : "FAIL: ";
}

/* Report a failure of the run, tell the peer, exit. */
void fail_wc(struct mrv *run, int wc_status, const char *fmt, ...)
{
	/*
	 * On reused QPs the report is a REUSE: the peer may be skipping
	 * stale messages until it sees one (reuse_sync).
	 */
	struct ctl c = { .type = run->s.reusing ? CTL_REUSE : CTL_RESULT, .fail = 1 };
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c.text, sizeof(c.text), fmt, ap);
	va_end(ap);
	fflush(stdout);
	fprintf(stderr, "mr-verify[%s]: %s", run->s.role, fail_tag(run, wc_status));
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (run->s.sock >= 0 && !run->s.fail_sent) {
		run->s.fail_sent = true;
		c.wc_status = wc_status;
		if (ctl_send(run, &c))
			fprintf(stderr, "mr-verify[%s]: (could not tell the peer)\n",
				run->s.role);
	}
	finish(run, wc_status, true);
}


/* Extra detail lines before a fail(): stderr only. */
void detail(struct mrv *run, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "mr-verify[%s]:   ", run->s.role);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* The next control message, whatever its type; want names it in errors. */
void ctl_read(struct mrv *run, struct ctl *c, uint32_t want)
{
	uint8_t buf[CTL_LEN];
	const uint8_t *p = buf;
	int rc = sock_read(run, buf, CTL_LEN, ctl_tmo(run));

	if (rc == -ETIMEDOUT)
		fail(run, "control channel: no %s from the peer within %d s (watchdog)",
		     ctl_name[want], ctl_tmo(run));
	if (rc == -EPIPE)
		fail(run, "control channel: the peer closed the connection (waiting for %s)",
		     ctl_name[want]);
	if (rc)
		fail(run, "control channel: %s", strerror(-rc));
	c->type = get32(&p);
	c->fail = get32(&p);
	c->wc_status = get32(&p);
	get32(&p);
	for (int i = 0; i < 4; i++)
		c->v[i] = get64(&p);
	memcpy(c->text, p, CTL_TEXT);
	c->text[CTL_TEXT - 1] = 0;
}

/* The peer's run failed and it said why. */
void peer_failed(struct mrv *run, const struct ctl *c)
{
	/* The peer already printed it; repeat it here so each log is complete. */
	run->s.fail_sent = true;
	run->s.peer_reported = true;
	fflush(stdout);
	fprintf(stderr, "mr-verify[%s]: %speer reported: %s\n",
		run->s.role, fail_tag(run, (int)c->wc_status), c->text);
	finish(run, (int)c->wc_status, true);
}

void ctl_recv(struct mrv *run, struct ctl *c, uint32_t want)
{
	ctl_read(run, c, want);
	if (c->fail)
		peer_failed(run, c);
	if (c->type != want)
		fail(run, "control channel: expected %s, got message type %u",
		     ctl_name[want], c->type);
}

void ctl_simple(struct mrv *run, uint32_t type, uint64_t v0, uint64_t v1)
{
	struct ctl c = { .type = type, .v = { v0, v1 } };
	int rc = ctl_send(run, &c);

	if (rc)
		fail(run, "control channel: sending %s: %s", ctl_name[type],
		     strerror(-rc));
}

void finish(struct mrv *run, int wc_status, bool failed)
{
	if (run->s.reusing) {
		/* Only reuse_after_error() ends a good pass on reused QPs. */
		say(run, "REUSE: FAIL: the QPs reset after the error did not verify (%s)",
		    failed && wc_status ? wc_name(wc_status) : "see above");
		exit(1);
	}
	if (run->o.expect_err >= 0) {
		if (failed && wc_status == run->o.expect_err) {
			say(run, "PASS: run ended with the expected completion status %s (%d)%s",
			    wc_name(wc_status), wc_status,
			    run->s.peer_reported ? ", reported by the peer" : "");
			if (run->o.reuse)
				reuse_after_error(run);
			exit(0);
		}
		if (!failed) {
			say(run, "FAIL: expected completion status %s but the run completed without error",
			    wc_name(run->o.expect_err));
			exit(1);
		}
		fflush(stdout);
		fprintf(stderr, "mr-verify[%s]: FAIL: expected completion status %s, run ended %s%s\n",
			run->s.role, wc_name(run->o.expect_err),
			wc_status ? "with status " : "with a failure that is not a completion status",
			wc_status ? wc_name(wc_status) : "");
		exit(1);
	}
	exit(failed ? 1 : 0);
}
