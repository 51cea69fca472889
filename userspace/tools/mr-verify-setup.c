// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mr-verify: the device, the QPs and their connection, the TCP
 * handshake, the buffers; option values (sizes, ops, numbers).
 */
#include "mr-verify.h"

/* ------------------------------------------------------------------ */
/* Set-up                                                             */

int mtu_enum(int bytes)
{
	switch (bytes) {
	case 256: return IBV_MTU_256;
	case 512: return IBV_MTU_512;
	case 1024: return IBV_MTU_1024;
	case 2048: return IBV_MTU_2048;
	case 4096: return IBV_MTU_4096;
	default: return -1;
	}
}


uint64_t parse_num(struct mrv *run, const char *s, const char *what)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		setup_error(run, "bad %s '%s'", what, s);
	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	}
	if (*end)
		setup_error(run, "bad %s '%s'", what, s);
	return v;
}

/* Resolve the size list (tokens: N[kKmM], mtu, mtu+N, mtu-N). */
int resolve_sizes(struct mrv *run, const char *spec, int mtu, uint64_t *out,
			 bool bound, char *err, size_t errlen)
{
	char buf[SPEC_LEN], *save = NULL, *tok;
	int n = 0;

	snprintf(buf, sizeof(buf), "%s", spec);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		long long v;
		char *end;

		if (!strncasecmp(tok, "mtu", 3)) {
			v = mtu;
			if (tok[3]) {
				long long dv = strtoll(tok + 3, &end, 10);

				if ((tok[3] != '+' && tok[3] != '-') || *end) {
					snprintf(err, errlen, "bad size '%s'", tok);
					return -1;
				}
				v += dv;
			}
		} else {
			errno = 0;
			v = strtoll(tok, &end, 0);
			if (*end == 'k' || *end == 'K') { v <<= 10; end++; }
			else if (*end == 'm' || *end == 'M') { v <<= 20; end++; }
			if (errno || end == tok || *end) {
				snprintf(err, errlen, "bad size '%s'", tok);
				return -1;
			}
		}
		if (v < 0 || v > (1ll << 31)) {
			snprintf(err, errlen, "size '%s' out of range", tok);
			return -1;
		}
		if (bound && (uint64_t)v > run->o.max_size)
			continue;
		if (n == MAX_SIZES) {
			snprintf(err, errlen, "more than %d sizes", MAX_SIZES);
			return -1;
		}
		out[n++] = (uint64_t)v;
	}
	/* sort, unique */
	for (int a = 0; a < n; a++)
		for (int b = a + 1; b < n; b++)
			if (out[b] < out[a]) {
				uint64_t t = out[a];

				out[a] = out[b];
				out[b] = t;
			}
	int m = 0;

	for (int a = 0; a < n; a++)
		if (!m || out[m - 1] != out[a])
			out[m++] = out[a];
	if (!m) {
		snprintf(err, errlen, "no message size left (sizes '%s', max %" PRIu64 ")",
			 spec, run->o.max_size);
		return -1;
	}
	return m;
}

uint32_t parse_ops(struct mrv *run, const char *s)
{
	char buf[256], *save = NULL, *tok;
	uint32_t mask = 0;

	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		int i;

		if (!strcmp(tok, "all")) {
			mask |= OPS_ALL;
			continue;
		}
		if (!strcmp(tok, "atomic")) {
			mask |= OPS_ATOMIC;
			continue;
		}
		for (i = 0; i < OP_COUNT; i++)
			if (!strcmp(tok, op_name[i]))
				break;
		if (i == OP_COUNT)
			setup_error(run, "unknown op '%s' (send,send_imm,write,write_imm,read,cas,fadd,atomic,all)",
				    tok);
		mask |= 1u << i;
	}
	if (!mask)
		setup_error(run, "--ops: empty list");
	return mask;
}

void open_device(struct mrv *run)
{
	struct ibv_device **list;
	int num, i;

	list = ibv_get_device_list(&num);
	if (!list || !num)
		setup_error(run, "no RDMA devices (is the driver loaded, a link added?)");
	for (i = 0; i < num; i++)
		if (!run->o.dev || !strcmp(ibv_get_device_name(list[i]), run->o.dev))
			break;
	if (i == num)
		setup_error(run, "RDMA device %s not found", run->o.dev);
	run->s.ctx = ibv_open_device(list[i]);
	if (!run->s.ctx)
		setup_error(run, "ibv_open_device(%s) failed",
			    ibv_get_device_name(list[i]));
	if (!run->o.dev)
		run->o.dev = strdup(ibv_get_device_name(list[i]));
	ibv_free_device_list(list);
	if (ibv_query_device(run->s.ctx, &run->s.dattr))
		setup_error(run, "ibv_query_device failed");
	if (ibv_query_port(run->s.ctx, (uint8_t)run->o.ib_port, &run->s.pattr))
		setup_error(run, "ibv_query_port(%d) failed", run->o.ib_port);
	if (run->s.pattr.state != IBV_PORT_ACTIVE)
		setup_error(run, "%s port %d is not ACTIVE (state %d)", run->o.dev,
			    run->o.ib_port, run->s.pattr.state);

	run->s.gid_idx = run->o.gid_idx;
	if (run->s.gid_idx < 0 && run->s.pattr.link_layer == IBV_LINK_LAYER_ETHERNET) {
		/* Prefer the RoCEv2 GID of an IPv4 address, then any RoCEv2. */
		int v2 = -1;

		for (int g = 0; g < run->s.pattr.gid_tbl_len; g++) {
			struct ibv_gid_entry e;

			if (ibv_query_gid_ex(run->s.ctx, run->o.ib_port, g, &e, 0))
				continue;
			if (e.gid_type != IBV_GID_TYPE_ROCE_V2)
				continue;
			if (v2 < 0)
				v2 = g;
			if (!memcmp(e.gid.raw, "\0\0\0\0\0\0\0\0\0\0\xff\xff", 12)) {
				v2 = g;
				break;
			}
		}
		run->s.gid_idx = v2 >= 0 ? v2 : 0;
	}
	if (run->s.gid_idx >= 0) {
		if (ibv_query_gid(run->s.ctx, (uint8_t)run->o.ib_port, run->s.gid_idx, &run->s.gid))
			setup_error(run, "ibv_query_gid(%d) failed", run->s.gid_idx);
	}
}

/* A random starting PSN: a reused QP starts elsewhere in the PSN space. */
uint32_t new_psn(void)
{
	uint32_t rnd;

	if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
		rnd = (uint32_t)(now_s() * 1e6) ^ (uint32_t)getpid();
	return rnd & 0xffffff;
}

/* RESET -> INIT with the access every opcode needs. 0 or an errno. */
int qp_to_init(struct mrv *run, struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .pkey_index = 0,
		.port_num = (uint8_t)run->o.ib_port,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
			IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC,
	};

	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			     IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}

void create_qps(struct mrv *run)
{
	int cqe = QDEPTH * (int)run->o.nqp + 8;

	run->s.pd = ibv_alloc_pd(run->s.ctx);
	if (!run->s.pd)
		setup_error(run, "ibv_alloc_pd failed");
	run->s.sch = ibv_create_comp_channel(run->s.ctx);
	run->s.rch = ibv_create_comp_channel(run->s.ctx);
	if (!run->s.sch || !run->s.rch)
		setup_error(run, "ibv_create_comp_channel failed");
	fcntl(run->s.sch->fd, F_SETFL, fcntl(run->s.sch->fd, F_GETFL) | O_NONBLOCK);
	fcntl(run->s.rch->fd, F_SETFL, fcntl(run->s.rch->fd, F_GETFL) | O_NONBLOCK);
	if (cqe > run->s.dattr.max_cqe)
		cqe = run->s.dattr.max_cqe;
	run->s.scq = ibv_create_cq(run->s.ctx, cqe, NULL, run->s.sch, 0);
	run->s.rcq = ibv_create_cq(run->s.ctx, cqe, NULL, run->s.rch, 0);
	if (!run->s.scq || !run->s.rcq)
		setup_error(run, "ibv_create_cq(%d) failed", cqe);

	for (uint32_t q = 0; q < run->o.nqp; q++) {
		struct ibv_qp_init_attr ia = {
			.send_cq = run->s.scq, .recv_cq = run->s.rcq,
			.qp_type = IBV_QPT_RC, .sq_sig_all = 0,
			.cap = {
				.max_send_wr = QDEPTH, .max_recv_wr = QDEPTH,
				.max_send_sge = MAX_SGE, .max_recv_sge = MAX_SGE,
				.max_inline_data = INLINE_WANT,
			},
		};

		if ((int)ia.cap.max_send_sge > run->s.dattr.max_sge)
			ia.cap.max_send_sge = ia.cap.max_recv_sge = run->s.dattr.max_sge;
		run->s.qp[q] = ibv_create_qp(run->s.pd, &ia);
		if (!run->s.qp[q]) {
			ia.cap.max_inline_data = 0;
			run->s.qp[q] = ibv_create_qp(run->s.pd, &ia);
		}
		if (!run->s.qp[q])
			setup_error(run, "ibv_create_qp(RC) failed: %s", strerror(errno));
		if (q == 0) {
			run->s.send_sge = ia.cap.max_send_sge < MAX_SGE ?
				ia.cap.max_send_sge : MAX_SGE;
			run->s.recv_sge = ia.cap.max_recv_sge < MAX_SGE ?
				ia.cap.max_recv_sge : MAX_SGE;
			run->s.read_sge = run->s.send_sge;
			if (run->s.dattr.max_sge_rd > 0 &&
			    (uint32_t)run->s.dattr.max_sge_rd < run->s.read_sge)
				run->s.read_sge = run->s.dattr.max_sge_rd;
			run->s.max_inline = ia.cap.max_inline_data;
		}
		run->s.psn[q] = new_psn();
		if (qp_to_init(run, run->s.qp[q]))
			setup_error(run, "modify QP to INIT failed");
	}
}

void connect_qps(struct mrv *run)
{
	uint32_t rd = run->s.dattr.max_qp_rd_atom, ird = run->s.dattr.max_qp_init_rd_atom;
	uint32_t out_rd = ird < run->s.peer.rd_atom ? ird : run->s.peer.rd_atom;
	uint32_t in_rd = rd < run->s.peer.init_rd_atom ? rd : run->s.peer.init_rd_atom;

	if (out_rd > 16)
		out_rd = 16;
	if (in_rd > 16)
		in_rd = 16;
	if (!out_rd)
		out_rd = 1;
	if (!in_rd)
		in_rd = 1;
	for (uint32_t q = 0; q < run->o.nqp; q++) {
		struct ibv_qp_attr a = {
			.qp_state = IBV_QPS_RTR,
			.path_mtu = run->s.mtu,
			.dest_qp_num = run->s.peer.qpn[q],
			.rq_psn = run->s.peer.psn[q],
			.max_dest_rd_atomic = (uint8_t)in_rd,
			.min_rnr_timer = 12,
			.ah_attr = {
				.is_global = 0,
				.dlid = (uint16_t)run->s.peer.lid,
				.sl = 0,
				.src_path_bits = 0,
				.port_num = (uint8_t)run->o.ib_port,
			},
		};
		if (run->s.gid_idx >= 0) {
			a.ah_attr.is_global = 1;
			a.ah_attr.grh.dgid = run->s.peer.gid;
			a.ah_attr.grh.sgid_index = (uint8_t)run->s.gid_idx;
			a.ah_attr.grh.hop_limit = 64;
		}
		if (ibv_modify_qp(run->s.qp[q], &a, IBV_QP_STATE | IBV_QP_AV |
				  IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				  IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
				  IBV_QP_MIN_RNR_TIMER))
			fail(run, "modify QP %u to RTR failed: %s", q, strerror(errno));
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_RTS;
		a.timeout = (uint8_t)run->o.timeout;
		a.retry_cnt = (uint8_t)run->o.retry;
		a.rnr_retry = (uint8_t)run->o.rnr_retry;
		a.sq_psn = run->s.psn[q];
		a.max_rd_atomic = (uint8_t)out_rd;
		if (ibv_modify_qp(run->s.qp[q], &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
				  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				  IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC))
			fail(run, "modify QP %u to RTS failed: %s", q, strerror(errno));
	}
}

void tcp_connect(struct mrv *run)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC,
				  .ai_socktype = SOCK_STREAM };
	double deadline = now_s() + run->o.connect_timeout;
	int one = 1, last = 0;

	if (run->o.server) {
		for (;;) {
			struct addrinfo *res, *ai;
			int rc = getaddrinfo(run->o.server, run->o.tcp_port, &hints, &res);

			if (rc)
				setup_error(run, "%s: %s", run->o.server, gai_strerror(rc));
			for (ai = res; ai; ai = ai->ai_next) {
				int fd = socket(ai->ai_family, ai->ai_socktype,
						ai->ai_protocol);

				if (fd < 0)
					continue;
				if (!connect(fd, ai->ai_addr, ai->ai_addrlen)) {
					run->s.sock = fd;
					break;
				}
				last = errno;
				close(fd);
			}
			freeaddrinfo(res);
			if (run->s.sock >= 0)
				break;
			if (now_s() >= deadline)
				setup_error(run, "could not connect to %s port %s within %d s: %s",
					    run->o.server, run->o.tcp_port,
					    run->o.connect_timeout, strerror(last));
			usleep(200000);
		}
	} else {
		int lfd = -1, rc;
		char *end;
		long port = strtol(run->o.tcp_port, &end, 10);

		if (*end || port <= 0 || port > 65535)
			setup_error(run, "bad TCP port '%s'", run->o.tcp_port);
		/* Dual-stack: IPv6 any with V6ONLY off, else IPv4 any. */
		lfd = socket(AF_INET6, SOCK_STREAM, 0);
		if (lfd >= 0) {
			struct sockaddr_in6 a6 = { .sin6_family = AF_INET6,
				.sin6_port = htons((uint16_t)port),
				.sin6_addr = IN6ADDR_ANY_INIT };
			int zero = 0;

			setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
			setsockopt(lfd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
			if (bind(lfd, (struct sockaddr *)&a6, sizeof(a6)) ||
			    listen(lfd, 1)) {
				close(lfd);
				lfd = -1;
			}
		}
		if (lfd < 0) {
			struct sockaddr_in a4 = { .sin_family = AF_INET,
				.sin_port = htons((uint16_t)port),
				.sin_addr = { htonl(INADDR_ANY) } };

			lfd = socket(AF_INET, SOCK_STREAM, 0);
			if (lfd < 0)
				setup_error(run, "socket: %s", strerror(errno));
			setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
			if (bind(lfd, (struct sockaddr *)&a4, sizeof(a4)) ||
			    listen(lfd, 1))
				setup_error(run, "cannot listen on TCP port %s: %s",
					    run->o.tcp_port, strerror(errno));
		}
		vsay(run, "listening on TCP port %s", run->o.tcp_port);
		struct pollfd pfd = { .fd = lfd, .events = POLLIN };

		rc = poll(&pfd, 1, run->o.connect_timeout * 1000);
		if (rc <= 0)
			setup_error(run, "no client within %d s", run->o.connect_timeout);
		run->s.sock = accept(lfd, NULL, NULL);
		if (run->s.sock < 0)
			setup_error(run, "accept: %s", strerror(errno));
		close(lfd);
	}
	setsockopt(run->s.sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* Send len bytes and read as many from the peer. 0 or -errno. */
int swap_blocks(struct mrv *run, const void *mine, void *theirs, size_t len, int tmo)
{
	int rc = sock_write(run, mine, len, tmo);

	return rc ? rc : sock_read(run, theirs, len, tmo);
}

void exchange(struct mrv *run, void *mine, void *theirs, size_t len, const char *what)
{
	int rc = swap_blocks(run, mine, theirs, len, run->o.connect_timeout);

	if (rc)
		setup_error(run, "%s exchange with the peer failed: %s", what,
			    rc == -EPIPE ? "connection closed" : strerror(-rc));
}

void handshake(struct mrv *run)
{
	uint8_t mine[HELLO_LEN] = { 0 }, theirs[HELLO_LEN], *p = mine;
	const uint8_t *r = theirs;
	char pspec[SPEC_LEN], err[160];
	uint32_t p_nqp, p_iters, p_ops, p_time, p_seed_set, p_ops_expl;
	uint32_t p_atomic_ok, p_sizes_expl, p_reuse;
	uint64_t p_max, p_pb, p_seed;
	uint32_t atomic_ok = run->s.dattr.atomic_cap != IBV_ATOMIC_NONE;
	int want_mtu = run->s.pattr.active_mtu;

	if (run->o.mtu) {
		want_mtu = mtu_enum(run->o.mtu);
		if (want_mtu > (int)run->s.pattr.active_mtu)
			say(run, "note: --mtu %d exceeds the port's active MTU %d",
			    run->o.mtu, mtu_bytes(run->s.pattr.active_mtu));
	}
	memcpy(p, MAGIC, 8);
	p += 8;
	put32(&p, PROTO_VERSION);
	put32(&p, run->o.nqp);
	put32(&p, run->o.iters);
	put32(&p, run->o.ops_mask);
	put32(&p, run->o.ops_explicit);
	put32(&p, atomic_ok);
	put32(&p, run->o.time_s);
	put64(&p, run->o.max_size);
	put64(&p, run->o.phase_bytes);
	put64(&p, run->o.seed);
	put32(&p, run->o.seed_set);
	put32(&p, (uint32_t)want_mtu);
	put32(&p, run->s.pattr.lid);
	memcpy(p, run->s.gid.raw, 16);
	p += 16;
	put32(&p, (uint32_t)run->s.dattr.max_qp_rd_atom);
	put32(&p, (uint32_t)run->s.dattr.max_qp_init_rd_atom);
	for (int q = 0; q < MAX_QP; q++)
		put32(&p, q < (int)run->o.nqp ? run->s.qp[q]->qp_num : 0);
	for (int q = 0; q < MAX_QP; q++)
		put32(&p, q < (int)run->o.nqp ? run->s.psn[q] : 0);
	put32(&p, run->o.sizes_explicit);
	snprintf((char *)p, SPEC_LEN, "%s", run->o.sizes_spec);
	p += SPEC_LEN;
	put32(&p, run->o.reuse);

	exchange(run, mine, theirs, HELLO_LEN, "parameter");

	if (memcmp(r, MAGIC, 8))
		setup_error(run, "the peer is not mr-verify (bad magic)");
	r += 8;
	if (get32(&r) != PROTO_VERSION)
		setup_error(run, "the peer speaks another mr-verify protocol version");
	p_nqp = get32(&r);
	p_iters = get32(&r);
	p_ops = get32(&r);
	p_ops_expl = get32(&r);
	p_atomic_ok = get32(&r);
	p_time = get32(&r);
	p_max = get64(&r);
	p_pb = get64(&r);
	p_seed = get64(&r);
	p_seed_set = get32(&r);
	run->s.peer.mtu = get32(&r);
	run->s.peer.lid = get32(&r);
	memcpy(run->s.peer.gid.raw, r, 16);
	r += 16;
	run->s.peer.rd_atom = get32(&r);
	run->s.peer.init_rd_atom = get32(&r);
	for (int q = 0; q < MAX_QP; q++)
		run->s.peer.qpn[q] = get32(&r);
	for (int q = 0; q < MAX_QP; q++)
		run->s.peer.psn[q] = get32(&r);
	p_sizes_expl = get32(&r);
	memcpy(pspec, r, SPEC_LEN);
	pspec[SPEC_LEN - 1] = 0;
	r += SPEC_LEN;
	p_reuse = get32(&r);

#define SAME(mine_, theirs_, opt)						\
	do {								\
		if ((uint64_t)(mine_) != (uint64_t)(theirs_))		\
			setup_error(run, "option mismatch with the peer: %s is %" PRIu64 " here, %" PRIu64 " there", \
				    opt, (uint64_t)(mine_), (uint64_t)(theirs_)); \
	} while (0)
	SAME(run->o.nqp, p_nqp, "-q");
	SAME(run->o.iters, p_iters, "-n");
	SAME(run->o.ops_mask, p_ops, "--ops (mask)");
	SAME(run->o.time_s, p_time, "--time");
	SAME(run->o.phase_bytes, p_pb, "--phase-bytes");
	SAME(run->o.max_size, p_max, "--max-size");
	SAME(run->o.sizes_explicit, p_sizes_expl, "-s given");
	/* Both sides reset their QPs after the error, or neither. */
	SAME(run->o.reuse, p_reuse, "--reuse-after-error");
	if (strcmp(pspec, run->o.sizes_spec))
		setup_error(run, "option mismatch with the peer: -s is '%s' here, '%s' there",
			    run->o.sizes_spec, pspec);
	if (run->o.seed_set && p_seed_set && run->o.seed != p_seed)
		setup_error(run, "option mismatch with the peer: --seed %" PRIu64 " here, %" PRIu64 " there",
			    run->o.seed, p_seed);
	/* One seed for both: an explicit one, else the server's. */
	if (!run->o.seed_set && (p_seed_set || !run->s.server))
		run->o.seed = p_seed;

	run->s.ops = run->o.ops_mask;
	run->s.ops_avail = OPS_ALL;
	if (!atomic_ok || !p_atomic_ok) {
		run->s.ops_avail &= ~OPS_ATOMIC;
		if ((run->o.ops_mask & OPS_ATOMIC) && (run->o.ops_explicit || p_ops_expl))
			setup_error(run, "atomics requested but %s device does not support them",
				    atomic_ok ? "the peer's" : "this");
		if (run->s.ops & OPS_ATOMIC)
			say(run, "note: atomics skipped (%s device has atomic_cap NONE)",
			    atomic_ok ? "the peer's" : "this");
		run->s.ops &= ~OPS_ATOMIC;
	}
	if (!run->s.ops)
		setup_error(run, "no operation left to test");
	run->s.mtu = (enum ibv_mtu)(want_mtu < (int)run->s.peer.mtu ? want_mtu : (int)run->s.peer.mtu);

	run->s.nsizes = resolve_sizes(run, run->o.sizes_spec, mtu_bytes(run->s.mtu), run->s.sizes,
				 !run->o.sizes_explicit, err, sizeof(err));
	if (run->s.nsizes < 0)
		setup_error(run, "%s", err);
	for (int i = 0; i < run->s.nsizes; i++)
		if (run->s.sizes[i] > run->s.dattr.max_mr_size ||
		    run->s.sizes[i] > run->s.pattr.max_msg_sz)
			setup_error(run, "size %" PRIu64 " exceeds the device's max_msg_sz %u",
				    run->s.sizes[i], run->s.pattr.max_msg_sz);
}

static void *alloc_buf(struct mrv *run, size_t len)
{
	void *p = NULL;

	if (posix_memalign(&p, 4096, len))
		setup_error(run, "out of memory (%zu bytes)", len);
	memset(p, 0, len);
	return p;
}

void setup_buffers(struct mrv *run)
{
	uint8_t mine[HELLO2_LEN] = { 0 }, theirs[HELLO2_LEN], *p = mine;
	const uint8_t *r = theirs;
	uint64_t maxs = run->s.sizes[run->s.nsizes - 1];
	int rw = IBV_ACCESS_LOCAL_WRITE;

	run->s.bufsize = 4 * stride_of(maxs);
	if (run->s.bufsize < QDEPTH * run->o.nqp * stride_of(4096))
		run->s.bufsize = QDEPTH * run->o.nqp * stride_of(4096);
	run->s.bufsize = (run->s.bufsize + 4095) & ~(size_t)4095;
	run->s.abuf_len = (2 * CANARY + 8 * atom_words(run) + 4095) & ~(size_t)4095;
	run->s.aret_len = 8 * QDEPTH * MAX_QP;
	run->s.sbuf = alloc_buf(run, run->s.bufsize);
	run->s.rbuf = alloc_buf(run, run->s.bufsize);
	run->s.ebuf = alloc_buf(run, run->s.bufsize);
	run->s.abuf = alloc_buf(run, run->s.abuf_len);
	run->s.aret = alloc_buf(run, run->s.aret_len);
	run->s.smr = ibv_reg_mr(run->s.pd, run->s.sbuf, run->s.bufsize, rw);
	run->s.rmr = ibv_reg_mr(run->s.pd, run->s.rbuf, run->s.bufsize, rw |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	run->s.amr = ibv_reg_mr(run->s.pd, run->s.abuf, run->s.abuf_len, rw |
			   IBV_ACCESS_REMOTE_ATOMIC);
	run->s.retmr = ibv_reg_mr(run->s.pd, run->s.aret, run->s.aret_len, rw);
	if (!run->s.smr || !run->s.rmr || !run->s.amr || !run->s.retmr)
		setup_error(run, "ibv_reg_mr failed: %s (RLIMIT_MEMLOCK?)",
			    strerror(errno));

	put64(&p, (uintptr_t)run->s.rbuf);
	put64(&p, run->s.bufsize);
	put32(&p, run->s.rmr->rkey);
	put64(&p, (uintptr_t)run->s.abuf);
	put64(&p, run->s.abuf_len);
	put32(&p, run->s.amr->rkey);
	exchange(run, mine, theirs, HELLO2_LEN, "buffer");
	run->s.peer.rbuf_addr = get64(&r);
	run->s.peer.rbuf_len = get64(&r);
	run->s.peer.rbuf_rkey = get32(&r);
	run->s.peer.abuf_addr = get64(&r);
	run->s.peer.abuf_len = get64(&r);
	run->s.peer.abuf_rkey = get32(&r);
	if (run->s.peer.rbuf_len != run->s.bufsize || run->s.peer.abuf_len != run->s.abuf_len)
		setup_error(run, "buffer sizes differ from the peer's (%" PRIu64 "/%zu)",
			    run->s.peer.rbuf_len, run->s.bufsize);
}

void print_gid(char *out, size_t len, const union ibv_gid *g)
{
	if (!inet_ntop(AF_INET6, g->raw, out, (socklen_t)len))
		snprintf(out, len, "?");
}
