// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mr-verify: RC data-integrity tool over standard verbs.
 *
 * Two hosts, one RC connection (or -q N), every RC opcode, many message
 * sizes, data checked on both sides. Runs over any verbs provider
 * (MetaRoCE, rdma_rxe, a NIC) because it uses nothing but ibv_*.
 *
 *   server:  mr-verify [options]
 *   client:  mr-verify [options] SERVER
 *
 * Connection set-up goes over a TCP socket (like ibv_rc_pingpong: QPN,
 * PSN, GID, buffer addresses and rkeys); the same socket then carries the
 * small control messages that pace the test. No rdma_cm.
 *
 * The plan. Both sides derive the same sequence of phases from the options:
 *   for pass (one, or until --time is up)
 *     for direction (server requests, then client requests)
 *       for op in send, send_imm, write, write_imm, read, cas, fadd
 *         for size in the size list (atomics: 8 bytes)
 *           iterations, in rounds of up to 32 messages per QP
 * Every message's content, placement offsets, SGE count, immediate value and
 * atomic operands come from a PRNG keyed by (seed, pass, direction, op, size,
 * iteration), so the side that did not produce the data can recompute it.
 *
 * A round, requester R and responder P:
 *   P  posts receives (SEND, SEND_IMM, WRITE_IMM), fills the target slots
 *      with a position-dependent canary pattern (or, for READ, places the
 *      source data), then sends READY.
 *   R  fills its sources (or canaries its READ targets), posts the WRs,
 *      waits for every completion (status, opcode, order), checks READ data,
 *      atomic return values and that its own sources did not change, and
 *      sends DONE with a checksum of the data as it saw it.
 *   P  collects its receive completions (status, opcode, byte_len, imm,
 *      flags, order), checks every byte of every target slot (message bytes
 *      against the PRNG, everything around them against the canary), the
 *      atomic words against its own model, compares checksums, sends RESULT.
 * Any mismatch or error completion ends the run on both sides: the side that
 * found it prints the diagnostic and forwards it to the peer.
 *
 * Reuse (--reuse-after-error, with --expect-error). A QP that failed must be
 * usable again after a reset (IB spec 10.3.1), so when the run ends with the
 * expected error both sides bring back the very same QPs, on the same PD,
 * MRs and CQs: ERR (flushes every WR still posted), drain the CQs, RESET,
 * INIT, new starting PSNs over the control channel, RTR, RTS; then one short
 * verified pass of every opcode on them ("REUSE: PASS ..." or a failure).
 * The side the peer told of the error goes through the same steps: its QPs
 * may still be RTS, with receives posted.
 *
 * Exit status: 0 all verified (or, with --expect-error, the run ended with
 * exactly that completion status, and with --reuse-after-error the reused
 * QPs then verified); 1 mismatch, error completion, timeout or peer failure;
 * 2 usage or set-up error.
 */
#include "mr-verify.h"

/* ------------------------------------------------------------------ */
/* Main                                                               */

static void usage(FILE *f)
{
	fprintf(f,
"usage: mr-verify [options]            (server)\n"
"       mr-verify [options] SERVER     (client)\n"
"RC data-integrity test over verbs: every opcode, many sizes, both directions,\n"
"every byte checked on both sides. Both sides must be given the same test\n"
"options (-s, -n, --ops, -q, --time, --max-size, --phase-bytes).\n"
"\n"
"  -d, --ib-dev DEV        RDMA device (default: the first)\n"
"  -i, --ib-port PORT      device port (default 1)\n"
"  -g, --gid-idx N         GID index (default: RoCEv2 IPv4 GID on Ethernet)\n"
"  -p, --port PORT         TCP port for set-up and control (default 18777)\n"
"  -s, --sizes LIST        message sizes, comma separated: N[k|m], mtu, mtu+N,\n"
"                          mtu-N (default " DEFAULT_SIZES ",\n"
"                          bounded by --max-size)\n"
"      --max-size BYTES    bound for the default size list (default 1m)\n"
"  -n, --iters N           messages per op and size (default 100)\n"
"      --phase-bytes BYTES at most this many bytes per op and size (default 8m)\n"
"      --ops LIST          send,send_imm,write,write_imm,read,cas,fadd,\n"
"                          atomic, all (default all)\n"
"      --seed N            data seed (default: random, the server's)\n"
"  -t, --time SECONDS      continuous mode: repeat the plan with new data until\n"
"                          the time is up, still checking everything\n"
"  -m, --mtu BYTES         path MTU 256..4096 (default: the port's active MTU)\n"
"  -q, --qps N             QPs, messages spread round-robin (default 1, max %d)\n"
"      --timeout N         QP local ACK timeout, 4.096us*2^N (default 14)\n"
"      --retry N           QP retry_cnt 0..7 (default 7)\n"
"      --rnr-retry N       QP rnr_retry 0..7 (default 7)\n"
"      --expect-error ST   succeed only if the run ends with completion status\n"
"                          ST (e.g. RETRY_EXC_ERR or IBV_WC_RETRY_EXC_ERR)\n"
"      --reuse-after-error (with --expect-error, on both sides) after that\n"
"                          error, move the same QPs through ERR (CQs drained of\n"
"                          the flushed WRs), RESET, INIT, RTR, RTS with new\n"
"                          PSNs and verify one short pass of every opcode on\n"
"                          them (-n at most %d): REUSE: PASS, or exit 1\n"
"      --reuse-hold        with --reuse-after-error: once the QPs are reset,\n"
"                          wait for SIGUSR1 (at most --watchdog s), e.g. for a\n"
"                          test to lift the fault that caused the error\n"
"      --watchdog SECONDS  longest wait for completions (default 60)\n"
"      --connect-timeout S TCP accept/connect retry time (default 60)\n"
"      --busy-poll         poll the CQs instead of waiting for events\n"
"  -v, --verbose           one line per op and size\n"
"      --phase-times       a line per phase: PHASE-TIME START END REQUESTER OP\n"
"                          SIZE BYTES (START, END: seconds of /proc/uptime)\n"
"      --corrupt-for-test  (testing the tool) flip one byte of the first\n"
"                          message this side sources; the run must fail\n"
"Exit status: 0 verified, 1 mismatch/error/timeout, 2 usage or set-up error.\n",
		MAX_QP, REUSE_ITERS);
}

enum {
	OPT_OPS = 256, OPT_SEED, OPT_TIMEOUT, OPT_RETRY, OPT_RNR, OPT_EXPECT,
	OPT_WATCHDOG, OPT_CONNTMO, OPT_CORRUPT, OPT_BUSY, OPT_MAXSIZE,
	OPT_PHASEB, OPT_REUSE, OPT_REUSE_HOLD, OPT_PHASE_TIMES,
};

static const struct option long_opts[] = {
	{ "ib-dev", 1, NULL, 'd' }, { "ib-port", 1, NULL, 'i' },
	{ "gid-idx", 1, NULL, 'g' }, { "port", 1, NULL, 'p' },
	{ "sizes", 1, NULL, 's' }, { "iters", 1, NULL, 'n' },
	{ "time", 1, NULL, 't' }, { "mtu", 1, NULL, 'm' },
	{ "qps", 1, NULL, 'q' }, { "verbose", 0, NULL, 'v' },
	{ "help", 0, NULL, 'h' },
	{ "ops", 1, NULL, OPT_OPS }, { "seed", 1, NULL, OPT_SEED },
	{ "timeout", 1, NULL, OPT_TIMEOUT }, { "retry", 1, NULL, OPT_RETRY },
	{ "rnr-retry", 1, NULL, OPT_RNR },
	{ "expect-error", 1, NULL, OPT_EXPECT },
	{ "watchdog", 1, NULL, OPT_WATCHDOG },
	{ "connect-timeout", 1, NULL, OPT_CONNTMO },
	{ "corrupt-for-test", 0, NULL, OPT_CORRUPT },
	{ "busy-poll", 0, NULL, OPT_BUSY },
	{ "max-size", 1, NULL, OPT_MAXSIZE },
	{ "phase-bytes", 1, NULL, OPT_PHASEB },
	{ "reuse-after-error", 0, NULL, OPT_REUSE },
	{ "reuse-hold", 0, NULL, OPT_REUSE_HOLD },
	{ "phase-times", 0, NULL, OPT_PHASE_TIMES },
	{ 0 },
};

long range(struct mrv *run, const char *s, const char *what, long lo, long hi)
{
	uint64_t v = parse_num(run, s, what);

	if ((long long)v < lo || (long long)v > hi)
		setup_error(run, "%s %s out of range %ld..%ld", what, s, lo, hi);
	return (long)v;
}

static void parse_args(struct mrv *run, int argc, char **argv)
{
	int c;

	while ((c = getopt_long(argc, argv, "d:i:g:p:s:n:t:m:q:vh", long_opts,
				NULL)) != -1) {
		switch (c) {
		case 'd': run->o.dev = optarg; break;
		case 'i': run->o.ib_port = (int)range(run, optarg, "-i", 1, 255); break;
		case 'g': run->o.gid_idx = (int)range(run, optarg, "-g", 0, 255); break;
		case 'p': run->o.tcp_port = optarg; break;
		case 's': run->o.sizes_spec = optarg; run->o.sizes_explicit = true; break;
		case 'n': run->o.iters = (uint32_t)range(run, optarg, "-n", 1, 1 << 30); break;
		case 't': run->o.time_s = (uint32_t)range(run, optarg, "--time", 1, 1 << 30); break;
		case 'm':
			run->o.mtu = (int)parse_num(run, optarg, "--mtu");
			if (mtu_enum(run->o.mtu) < 0)
				setup_error(run, "--mtu must be 256, 512, 1024, 2048 or 4096");
			break;
		case 'q': run->o.nqp = (uint32_t)range(run, optarg, "-q", 1, MAX_QP); break;
		case 'v': run->o.verbose++; break;
		case 'h': usage(stdout); exit(0);
		case OPT_OPS:
			run->o.ops_mask = parse_ops(run, optarg);
			run->o.ops_explicit = true;
			break;
		case OPT_SEED:
			run->o.seed = parse_num(run, optarg, "--seed");
			run->o.seed_set = true;
			break;
		case OPT_TIMEOUT: run->o.timeout = (int)range(run, optarg, "--timeout", 0, 31); break;
		case OPT_RETRY: run->o.retry = (int)range(run, optarg, "--retry", 0, 7); break;
		case OPT_RNR: run->o.rnr_retry = (int)range(run, optarg, "--rnr-retry", 0, 7); break;
		case OPT_EXPECT:
			run->o.expect_err = parse_wc_status(optarg);
			if (run->o.expect_err < 0)
				setup_error(run, "--expect-error: unknown completion status '%s'",
					    optarg);
			break;
		case OPT_WATCHDOG:
			run->o.watchdog = (int)range(run, optarg, "--watchdog", 1, 86400);
			break;
		case OPT_CONNTMO:
			run->o.connect_timeout = (int)range(run, optarg, "--connect-timeout", 1, 86400);
			break;
		case OPT_CORRUPT: run->o.corrupt = 1; break;
		case OPT_BUSY: run->o.busy_poll = true; break;
		case OPT_MAXSIZE:
			run->o.max_size = parse_num(run, optarg, "--max-size");
			break;
		case OPT_PHASEB:
			run->o.phase_bytes = parse_num(run, optarg, "--phase-bytes");
			if (!run->o.phase_bytes)
				setup_error(run, "--phase-bytes must be > 0");
			break;
		case OPT_REUSE: run->o.reuse = true; break;
		case OPT_REUSE_HOLD: run->o.reuse_hold = true; break;
		case OPT_PHASE_TIMES: run->o.phase_times = true; break;
		default:
			usage(stderr);
			exit(2);
		}
	}
	if (optind + 1 < argc) {
		usage(stderr);
		exit(2);
	}
	if (optind < argc)
		run->o.server = argv[optind];
	run->s.server = !run->o.server;
	run->s.role = run->s.server ? "server" : "client";
	if (run->o.reuse && run->o.expect_err < 0)
		setup_error(run, "--reuse-after-error needs --expect-error (the error to reuse the QPs after)");
	if (run->o.reuse_hold && !run->o.reuse)
		setup_error(run, "--reuse-hold needs --reuse-after-error");
	if (strlen(run->o.sizes_spec) >= SPEC_LEN)
		setup_error(run, "-s list too long");
	{
		uint64_t tmp[MAX_SIZES];
		char err[160];

		if (resolve_sizes(run, run->o.sizes_spec, 1024, tmp, false, err,
				  sizeof(err)) < 0)
			setup_error(run, "-s: %s", err);
	}
	if (!run->o.seed_set && run->s.server) {
		if (getrandom(&run->o.seed, sizeof(run->o.seed), 0) != sizeof(run->o.seed))
			run->o.seed = (uint64_t)(now_s() * 1e9) ^ (uint64_t)getpid();
		run->o.seed &= 0xffffffffffffull;	/* short enough to retype */
	}
}

/* The totals of the run, after tag ("PASS:", or "REUSE: PASS"). */
void summary(struct mrv *run, const char *tag)
{
	uint64_t msgs = 0, bytes = 0, atom = 0;
	char ops[128] = "";
	double t = elapsed_s(run);
	size_t o = 0;

	for (int i = 0; i < OP_COUNT; i++) {
		if (!(run->s.ops & (1u << i)))
			continue;
		o += snprintf(ops + o, sizeof(ops) - o, "%s%s", o ? "," : "",
			      op_name[i]);
		msgs += run->s.msgs[i];
		if (op_atomic(i))
			atom += run->s.msgs[i];
		else
			bytes += run->s.bytes[i];
	}
	say(run, "%s ops=%s sizes=%d dirs=%d passes=%" PRIu64 " phases=%" PRIu64 " msgs=%" PRIu64 " (atomics %" PRIu64 ") bytes=%" PRIu64 " verified both sides, %.1f s, %.2f MB/s",
	    tag, ops, run->s.nsizes, __builtin_popcount(run->s.dirs_run), run->s.passes, run->s.phases,
	    msgs, atom, bytes, t,
	    t > 0 ? bytes / t / 1e6 : 0.0);
}

/* Both sides' QPs are RTS before either sends. */
void sync_peer(struct mrv *run)
{
	struct ctl c;

	ctl_simple(run, CTL_SYNC, 0, 0);
	ctl_recv(run, &c, CTL_SYNC);
	clock_gettime(CLOCK_MONOTONIC, &run->s.t0);
}

/* Every phase of the plan, the server pacing the client. */
void run_plan(struct mrv *run)
{
	struct phase ph = { .op = OP_COUNT };

	for (;;) {
		bool have = next_phase(run, &ph);
		struct ctl c;

		if (run->s.server) {
			bool stop = !have ||
				    (run->o.time_s && elapsed_s(run) >= run->o.time_s);
			struct ctl pc = { .type = CTL_PHASE,
					  .v = { stop, ph.pass,
						 (uint64_t)ph.dir << 32 | ph.op,
						 ph.size } };
			int rc = ctl_send(run, &pc);

			if (rc)
				fail(run, "control channel: sending PHASE: %s",
				     strerror(-rc));
			if (stop)
				break;
		} else {
			ctl_recv(run, &c, CTL_PHASE);
			if (c.v[0])
				break;
			if (!have || c.v[1] != ph.pass ||
			    c.v[2] != ((uint64_t)ph.dir << 32 | ph.op) ||
			    c.v[3] != ph.size)
				fail(run, "plan out of step with the server (phase pass %" PRIu64 " op %" PRIu64 " size %" PRIu64 " there)",
				     c.v[1], c.v[2] & 0xff, c.v[3]);
		}
		if (ph.pass + 1 > run->s.passes)
			run->s.passes = ph.pass + 1;
		do_phase(run, &ph);
	}
}


int main(int argc, char **argv)
{
	static struct mrv the_run = {
		.o = {
			.ib_port = 1, .gid_idx = -1, .sizes_spec = DEFAULT_SIZES,
			.max_size = 1 << 20, .iters = 100,
			.phase_bytes = 8 << 20, .ops_mask = OPS_ALL, .nqp = 1,
			.timeout = 14, .retry = 7, .rnr_retry = 7,
			.expect_err = -1, .tcp_port = "18777", .watchdog = 60,
			.connect_timeout = 60,
		},
		.s = { .sock = -1, .gid_idx = -1 },
	};
	struct mrv *run = &the_run;
	char g[INET6_ADDRSTRLEN], pg[INET6_ADDRSTRLEN], sz[512];
	size_t o = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	parse_args(run, argc, argv);
	if (run->o.reuse_hold) {
		/* Installed now: an early signal must not end the run. */
		struct sigaction sa = { .sa_handler = on_usr1,
					.sa_flags = SA_RESTART };

		sigaction(SIGUSR1, &sa, NULL);
	}
	open_device(run);
	create_qps(run);
	tcp_connect(run);
	handshake(run);
	setup_buffers(run);
	connect_qps(run);
	sync_peer(run);

	print_gid(g, sizeof(g), &run->s.gid);
	print_gid(pg, sizeof(pg), &run->s.peer.gid);
	for (int i = 0; i < run->s.nsizes && o < sizeof(sz) - 24; i++)
		o += snprintf(sz + o, sizeof(sz) - o, "%s%" PRIu64, i ? "," : "",
			      run->s.sizes[i]);
	say(run, "%s port %d gid[%d] %s <-> %s, %u QP(s) qpn 0x%x<->0x%x, mtu %d, seed %" PRIu64 ", sizes %s, -n %u%s",
	    run->o.dev, run->o.ib_port, run->s.gid_idx, g, pg, run->o.nqp, run->s.qp[0]->qp_num,
	    run->s.peer.qpn[0], mtu_bytes(run->s.mtu), run->o.seed, sz, run->o.iters,
	    run->o.time_s ? ", continuous" : "");

	run_plan(run);
	summary(run, "PASS:");
	finish(run, 0, false);
}
