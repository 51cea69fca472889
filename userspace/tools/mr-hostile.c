// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mr-hostile: a hostile peer for MetaRoCE. It attacks live QPs while a
 * verified workload (mr-verify) runs, so that a remote denial of service or
 * a memory-safety defect in a receiver shows up in a test.
 *
 *   mr-hostile --offpath PEER [-i IFACE] [--rate PPS] [--time S] [--seed N]
 *   mr-hostile --victim [-d DEV] [-p PORT] [--mr-size BYTES]
 *   mr-hostile --insider VICTIM [-d DEV] [-p PORT] [-i IFACE] [--rate PPS]
 *              [--time S] [--seed N] [--max-latency MS]
 *   mr-hostile --list | --selftest
 *
 * Every packet is built by the protocol core's own codec
 * (kernel/proto/wire.c: mr_pkt_encode, the ICRC); malformed packets are
 * valid encodings with chosen bytes patched afterwards. Nothing else of the
 * implementation is used: only the wire format of the specification.
 *
 * Two attacker models (spec section "Security (SEC)", threat model):
 *
 * Off-path (--offpath PEER). Knows the two IP addresses, not the QPNs,
 * PSNs or R_Keys. It sends from this host to PEER: through a UDP socket,
 * and through a raw IPv4 socket (IP_HDRINCL) for spoofed source addresses,
 * UDP length lies and IP fragments. An AF_PACKET capture on IFACE lets it
 * learn which QP pairs are live and where their PSNs are, only to stay
 * *away* from every window and to replay packets: a packet that the
 * receiver would accept (it decodes, its ICRC is right, it comes from the
 * QP's peer address) never carries a PSN, cum_psn or NACK PSN within 2^20
 * of the live one, unless it is a byte-exact replay of a captured packet
 * (a duplicate) or differs from one only in the fields a retransmission
 * may change (MR-REL-4: UDP source port, path, ACKREQ, RETX). Every other
 * mutation of a captured packet breaks its ICRC. A guard decodes every
 * packet before it leaves and refuses (and counts) one that breaks this
 * rule: an in-window forgery with a correct ICRC is an on-path attack the
 * threat model excludes. Spoofed-source packets (class spoof_src) do carry
 * live PSNs: MR-SEC-4 alone must drop them. Half of the far-PSN packets
 * carry the pair's requester clock (as an MBH.ts or an ACK's echo) learned
 * from the capture, so that they pass the timestamp checks (MR-WIN-6,
 * MR-SEC-6) and reach the sequence checks behind them.
 *
 * Insider (--insider VICTIM, with --victim on the other host). A peer that
 * legitimately holds an R_Key. The victim creates a PD with a large MR
 * (remote read, write, atomic; a known pattern; guard areas around it), an
 * MR of another PD, a local-only MR and the R_Key of a deregistered MR, and
 * publishes them over a TCP control channel. For each step of its table the
 * insider connects a real RC QP (libibverbs) to a fresh victim QP (so the
 * victim QP is RTS with a real peer), checks the victim with one verified
 * RDMA READ (the health probe), and then injects raw packets AS that QP,
 * knowing the PSN window because it owns it, stamped with that QP's clock
 * (learned from its packets: the victim's timestamp window, MR-WIN-6, sees
 * one sender). The victim also runs requester
 * traffic towards the insider's QP (WRITEs and READs), the target of forged
 * ACKs and NACKs. At the end of a step the victim reports its QP state,
 * completion statuses and events, flushes (every WR must complete), checks
 * its guard areas and canaries, and destroys the QP.
 *
 * Each step has an expectation. KEEP: only malformed, corrupted, out of
 * window, duplicate, inconsistent or legitimate requests (READs split into
 * READ_REQs of at most 64 KiB) and acknowledgements the requester must
 * ignore: the victim QP must stay RTS and send no fatal NACK (MR-MAL-1,
 * MR-REL-1, MR-REL-7..10, MR-REL-20, MR-ICRC-4, MR-SEC-6). DIE: a request
 * the spec refuses (R_Key of another PD, no access, deregistered, out of
 * range: REMOTE_ACCESS; a READ_REQ over 64 KiB, one READ beyond
 * max_dest_rd_atomic, an MSN or SSN no requester sends, an operation the
 * QP does not enable, a SEND too long: INVALID_REQ) or a forged fatal NACK
 * with a true echo: the victim QP must end in Error after the NACK the
 * spec names, for the refused request's PSN, sent when cum_psn got there,
 * after the responses of earlier READs, earlier SENDs completed; a forged
 * NACK fails the victim's WR with the status the spec maps it to
 * (MR-SEC-10, MR-REL-31, MR-VERBS-15, -20, -21, -22, -24, MR-REL-25). MAY:
 * anything goes as long as the host survives. In every step: READ
 * responses must carry exactly the pattern of the bytes they name, never
 * bytes outside the MR, only bytes a valid READ_REQ of that READ asked
 * for (MR-REL-8), none for a duplicate more than 256 PSNs old (MR-REL-1);
 * atomic responses the pattern word; no byte outside a registered region
 * may change, every WR must complete, and the victim must answer the
 * control channel within --max-latency.
 *
 * Table driven (one table of generators per model), paced at --rate
 * packets per second, deterministic from --seed given the same traffic,
 * with a per-class summary. Exit status: 0 nothing violated, 1 a
 * violation (lines "VIOLATION: ..."), 2 usage or set-up error.
 *
 * This file holds --count and main; the models are in
 * mr-hostile-offpath.c, mr-hostile-victim.c and mr-hostile-insider.c, what
 * they share in mr-hostile-common.c (mr-hostile.h lists it).
 */
#include "mr-hostile.h"

/* ------------------------------------------------------------------ */
/* --count: the peer's module packets that reached this NIC           */

static volatile sig_atomic_t count_stop;

static void on_term(int sig)
{
	(void)sig;
	count_stop = 1;
}

/*
 * Until SIGTERM/SIGINT (or --time): count the MetaRoCE packets from PEER
 * with a module source port (0xC000 and up, MR-ENC-2; the attack tools
 * never use those) that arrived at the interface, before the IP stack.
 * The socket's statistics include what its buffer dropped, so the count is
 * exact however slowly this process runs. With the peer's tx_packets it
 * gives what its device sent that never arrived (egress queue overflow and
 * link loss): attack packets are not in it, unlike in rx_packets.
 */
static void run_count(void)
{
	struct sigaction sa = { .sa_handler = on_term };
	struct tpacket_stats st;
	socklen_t sl = sizeof(st);
	struct in_addr pa;
	/* Source ports and TOS bytes of the packets read (not the drops). */
	static uint8_t sport_seen[65536 / 8];
	uint8_t tos_seen[256 / 8] = { 0 };
	unsigned int n_sports = 0;
	uint8_t f[256];
	ssize_t len;
	int c, i;

	role = "count";
	if (inet_pton(AF_INET, O.peer, &pa) != 1)
		die("'%s' is not an IPv4 address", O.peer);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	{
		struct sock_filter flt[] = {
			BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 12),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ETH_P_IP, 0, 12),
			BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 23),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_UDP, 0, 10),
			BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 26),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ntohl(pa.s_addr), 0, 8),
			BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 20),
			BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x1fff, 6, 0),
			BPF_STMT(BPF_LDX | BPF_B | BPF_MSH, 14),
			BPF_STMT(BPF_LD | BPF_H | BPF_IND, 16),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)O.udp_port, 0, 3),
			BPF_STMT(BPF_LD | BPF_H | BPF_IND, 14),
			BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, MR_ENTROPY_BASE, 0, 1),
			BPF_STMT(BPF_RET | BPF_K, 64),
			BPF_STMT(BPF_RET | BPF_K, 0),
		};
		struct sock_fprog fp = { .len = MR_ARRAY_SIZE(flt), .filter = flt };

		int ifindex = (int)if_nametoindex(O.ifname);

		if (!ifindex)
			die("no interface %s", O.ifname);
		c = capture_open(ifindex, &fp);
	}
	/* Zero the statistics: the count starts here. */
	getsockopt(c, SOL_PACKET, PACKET_STATISTICS, &st, &sl);
	say("counting %s's module packets on %s", O.peer, O.ifname);
	while (!count_stop && now_s() - t_start < O.time_s) {
		struct pollfd pf = { .fd = c, .events = POLLIN };

		if (poll(&pf, 1, 200) <= 0)
			continue;
		while ((len = recv(c, f, sizeof(f), MSG_DONTWAIT)) > 0) {
			/* Ethernet, IPv4 (the filter's), UDP source port */
			size_t udp = 14 + (size_t)(f[14] & 0xf) * 4;
			unsigned int sp;

			if ((size_t)len < udp + 2)
				continue;
			sp = (unsigned int)f[udp] << 8 | f[udp + 1];
			if (!(sport_seen[sp / 8] & (1u << (sp % 8))))
				n_sports++;
			sport_seen[sp / 8] |= (uint8_t)(1u << (sp % 8));
			tos_seen[f[15] / 8] |= (uint8_t)(1u << (f[15] % 8));
		}
	}
	sl = sizeof(st);
	if (getsockopt(c, SOL_PACKET, PACKET_STATISTICS, &st, &sl))
		die("PACKET_STATISTICS: %s", strerror(errno));
	/* tp_packets includes the drops (af_packet adds them). */
	printf("HOSTILE-COUNT from=%s packets=%u socket_drops=%u sports=%u tos=",
	       O.peer, st.tp_packets, st.tp_drops, n_sports);
	for (i = 0, c = 0; i < 256; i++)
		if (tos_seen[i / 8] & (1u << (i % 8)))
			printf("%s0x%02x", c++ ? "," : "", i);
	printf("%s\n", c ? "" : "none");
	exit(0);
}

/* ------------------------------------------------------------------ */
/* main                                                               */

static void usage(FILE *f)
{
	fprintf(f,
"usage: mr-hostile --offpath PEER [options]     off-path attacker towards PEER\n"
"       mr-hostile --victim [options]           victim of the insider (listens)\n"
"       mr-hostile --insider VICTIM [options]   insider attacker\n"
"       mr-hostile --count PEER [-i IF]         count PEER's module packets\n"
"                                               arriving here, until SIGTERM\n"
"       mr-hostile --list | --selftest\n"
"Attacks live MetaRoCE QPs; see the comment at the top of mr-hostile.c and\n"
"userspace/tools/README.md.\n"
"\n"
"  -d, --ib-dev DEV        RDMA device (victim, insider; default: the first)\n"
"  -g, --gid-idx N         GID index (default: the RoCE v2 IPv4 GID)\n"
"  -i, --iface IF          interface to capture on (default eth0)\n"
"  -p, --port PORT         TCP control port of the victim (default 18790)\n"
"      --udp-port PORT     MetaRoCE UDP port (default %d)\n"
"  -r, --rate PPS          attack packets per second (default 500)\n"
"  -t, --time SECONDS      attack duration; the victim's lifetime (default 30)\n"
"      --seed N            PRNG seed (default: random, printed)\n"
"      --classes LIST      only these classes (names from --list)\n"
"      --slice-ms MS       time per class or step (default: one pass over the\n"
"                          table in --time; insider DIE steps: until the QP\n"
"                          ends, at most 3000 x --slowdown)\n"
"      --mr-size BYTES     the victim's MR (default 256m)\n"
"      --max-latency MS    bound on the victim's control-channel answers\n"
"                          (insider; default 3000)\n"
"      --connect-timeout S (default 120)\n"
"      --slowdown N        multiply the bounds on how long the victim's kernel\n"
"                          may take to flush, destroy and answer by N (a\n"
"                          debug kernel; default 1)\n"
"  -v, --verbose\n"
"Exit status: 0 no violation, 1 a violation, 2 usage or set-up error.\n",
		MR_UDP_PORT);
}

enum { OPT_VICTIM = 256, OPT_INSIDER, OPT_OFFPATH, OPT_COUNT, OPT_LIST, OPT_SELFTEST,
       OPT_SEED, OPT_CLASSES, OPT_SLICE, OPT_MRSIZE, OPT_MAXLAT, OPT_UDPPORT,
       OPT_CONNTMO, OPT_SLOWDOWN };

static const struct option long_opts[] = {
	{ "victim", 0, NULL, OPT_VICTIM }, { "insider", 1, NULL, OPT_INSIDER },
	{ "offpath", 1, NULL, OPT_OFFPATH }, { "list", 0, NULL, OPT_LIST },
	{ "count", 1, NULL, OPT_COUNT },
	{ "selftest", 0, NULL, OPT_SELFTEST }, { "ib-dev", 1, NULL, 'd' },
	{ "gid-idx", 1, NULL, 'g' }, { "iface", 1, NULL, 'i' },
	{ "port", 1, NULL, 'p' }, { "udp-port", 1, NULL, OPT_UDPPORT },
	{ "rate", 1, NULL, 'r' }, { "time", 1, NULL, 't' },
	{ "seed", 1, NULL, OPT_SEED }, { "classes", 1, NULL, OPT_CLASSES },
	{ "slice-ms", 1, NULL, OPT_SLICE }, { "mr-size", 1, NULL, OPT_MRSIZE },
	{ "max-latency", 1, NULL, OPT_MAXLAT },
	{ "connect-timeout", 1, NULL, OPT_CONNTMO },
	{ "slowdown", 1, NULL, OPT_SLOWDOWN },
	{ "verbose", 0, NULL, 'v' }, { "help", 0, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static uint64_t num(const char *s, const char *what, uint64_t lo, uint64_t hi)
{
	uint64_t v = parse_size(s, what);

	if (v < lo || v > hi)
		die("%s: %s out of range %" PRIu64 "..%" PRIu64, what, s, lo, hi);
	return v;
}

static void set_mode(enum mode m)
{
	if (O.mode != M_NONE)
		die("give one of --offpath, --victim, --insider, --count, --list, --selftest");
	O.mode = m;
}

int main(int argc, char **argv)
{
	int c;

	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	while ((c = getopt_long(argc, argv, "d:g:i:p:r:t:vh", long_opts, NULL)) != -1) {
		switch (c) {
		case OPT_VICTIM: set_mode(M_VICTIM); break;
		case OPT_INSIDER: set_mode(M_INSIDER); O.peer = optarg; break;
		case OPT_OFFPATH: set_mode(M_OFFPATH); O.peer = optarg; break;
		case OPT_COUNT: set_mode(M_COUNT); O.peer = optarg; break;
		case OPT_LIST: set_mode(M_LIST); break;
		case OPT_SELFTEST: set_mode(M_SELFTEST); break;
		case 'd': O.dev = optarg; break;
		case 'g': O.gid_idx = (int)num(optarg, "-g", 0, 255); break;
		case 'i': O.ifname = optarg; break;
		case 'p': O.ctl_port = optarg; break;
		case OPT_UDPPORT: O.udp_port = (int)num(optarg, "--udp-port", 1, 65535); break;
		case 'r': O.rate = (uint32_t)num(optarg, "--rate", 1, 1000000); break;
		case 't': O.time_s = (uint32_t)num(optarg, "--time", 1, 1u << 30); break;
		case OPT_SEED: O.seed = parse_size(optarg, "--seed"); O.seed_set = true; break;
		case OPT_CLASSES: O.classes = optarg; break;
		case OPT_SLICE: O.slice_ms = (uint32_t)num(optarg, "--slice-ms", 100, 1u << 30); break;
		case OPT_MRSIZE:
			O.mr_size = num(optarg, "--mr-size", 1 << 20, 1ull << 31) & ~4095ull;
			break;
		case OPT_MAXLAT: O.max_lat_ms = (uint32_t)num(optarg, "--max-latency", 10, 1u << 30); break;
		case OPT_CONNTMO: O.connect_timeout = (int)num(optarg, "--connect-timeout", 1, 86400); break;
		case OPT_SLOWDOWN: O.slowdown = (uint32_t)num(optarg, "--slowdown", 1, 20); break;
		case 'v': O.verbose++; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc || O.mode == M_NONE) {
		usage(stderr);
		return 2;
	}
	if (!O.seed_set) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		O.seed = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^
			 ((uint64_t)getpid() << 40);
	}
	rng = O.seed;
	ts_off = rnd32();
	t_start = now_s();
	switch (O.mode) {
	case M_LIST: list_offpath(); list_insider(); return 0;
	case M_SELFTEST: selftest(); return 0;
	case M_OFFPATH: run_offpath(); break;
	case M_COUNT: run_count(); break;
	case M_VICTIM: run_victim(); break;
	default: run_insider(); break;
	}
	if (violations)
		say("FAIL: %u violation(s), seed %" PRIu64, violations, O.seed);
	else
		say("PASS: no violation, seed %" PRIu64, O.seed);
	return violations ? 1 : 0;
}

