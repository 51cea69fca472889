/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * mr-verify: what its files share (mr-verify.c says what the tool does).
 *
 * One run is a struct mrv: the options (o) and where the run stands (s).
 * Every function that needs either takes it as its first argument, run.
 */
#ifndef MR_VERIFY_H
#define MR_VERIFY_H

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <ctype.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <infiniband/verbs.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_QP		16
#define QDEPTH		32	/* messages per QP per round */
#define MAX_SGE		4	/* SGEs per WR we use at most */
#define CANARY		64	/* canary bytes before and after a slot's data */
#define GAP_MAX		64	/* gap between SGEs of one message: 0..63 */
#define EXTRA_MAX	64	/* receive room beyond the message: 0..63 */
#define WORDS_PER_QP	4	/* atomic target words per QP */
#define MAX_SIZES	64
#define SPEC_LEN	256
#define INLINE_WANT	64
#define HELLO_LEN	1024
#define HELLO2_LEN	64
#define CTL_LEN		256
#define CTL_TEXT	(CTL_LEN - 48)
#define DEFAULT_SIZES	"1,7,64,1000,mtu-1,mtu,mtu+1,4096,4097,65536,1048576"
#define MAGIC		"MRVERIFY"
#define PROTO_VERSION	1
#define REUSE_MAGIC	"MRREUSE1"
#define REUSE_LEN	160	/* magic, QP count, QPNs, PSNs */
#define REUSE_ITERS	8	/* messages per op and size on reused QPs */

enum op { OP_SEND, OP_SEND_IMM, OP_WRITE, OP_WRITE_IMM, OP_READ, OP_CAS,
	  OP_FADD, OP_COUNT };

extern const char *const op_name[OP_COUNT];

#define OPS_ALL		((1u << OP_COUNT) - 1)
#define OPS_ATOMIC	((1u << OP_CAS) | (1u << OP_FADD))

static inline bool op_atomic(int op)
{
	return op == OP_CAS || op == OP_FADD;
}
static inline bool op_recv(int op)
{
	return op == OP_SEND || op == OP_SEND_IMM || op == OP_WRITE_IMM;
}
static inline bool op_imm(int op)
{
	return op == OP_SEND_IMM || op == OP_WRITE_IMM;
}
static inline bool op_send(int op)
{
	return op == OP_SEND || op == OP_SEND_IMM;
}

/* ------------------------------------------------------------------ */
/* Options                                                            */

struct mrv_opts {
	const char *dev;
	int ib_port;
	int gid_idx;
	const char *sizes_spec;
	bool sizes_explicit;
	uint64_t max_size;
	uint32_t iters;
	uint64_t phase_bytes;
	uint32_t ops_mask;
	bool ops_explicit;
	uint64_t seed;
	bool seed_set;
	uint32_t time_s;
	int mtu;		/* bytes, 0 = port's active MTU */
	uint32_t nqp;
	int timeout;
	int retry;
	int rnr_retry;
	int expect_err;		/* -1 none */
	int verbose;
	const char *tcp_port;
	int watchdog;
	int connect_timeout;
	int corrupt;
	bool busy_poll;
	bool reuse;		/* --reuse-after-error */
	bool reuse_hold;	/* --reuse-hold: wait for SIGUSR1 first */
	bool phase_times;	/* --phase-times: a PHASE-TIME line per phase */
	const char *server;
};

/* ------------------------------------------------------------------ */
/* State                                                              */

struct peer {
	uint32_t lid;
	union ibv_gid gid;
	uint32_t qpn[MAX_QP];
	uint32_t psn[MAX_QP];
	uint32_t mtu;		/* enum ibv_mtu */
	uint32_t rd_atom;	/* max_qp_rd_atom (as responder) */
	uint32_t init_rd_atom;	/* max_qp_init_rd_atom (as requester) */
	uint64_t rbuf_addr, rbuf_len, abuf_addr, abuf_len;
	uint32_t rbuf_rkey, abuf_rkey;
};

struct mrv_state {
	bool server;
	const char *role;	/* "server" or "client" */
	int sock;
	bool fail_sent;
	bool peer_reported;	/* the failure came from the peer */
	struct timespec t0;

	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *sch, *rch;
	struct ibv_cq *scq, *rcq;
	struct ibv_qp *qp[MAX_QP];
	uint32_t psn[MAX_QP];
	struct ibv_device_attr dattr;
	struct ibv_port_attr pattr;
	union ibv_gid gid;
	int gid_idx;		/* -1: no GRH (InfiniBand LID routing) */
	enum ibv_mtu mtu;
	uint32_t send_sge, recv_sge, read_sge, max_inline;
	struct peer peer;
	uint32_t ops;		/* effective op mask */
	uint32_t ops_avail;	/* every op both devices support */
	uint32_t sq_posted;	/* send WRs posted and not yet polled */
	uint32_t rq_posted;	/* receive WRs likewise */
	bool reusing;		/* past the expected error, on reset QPs */

	uint64_t sizes[MAX_SIZES];
	int nsizes;
	size_t bufsize;
	uint8_t *sbuf, *rbuf, *ebuf, *abuf, *aret;
	size_t abuf_len, aret_len;
	struct ibv_mr *smr, *rmr, *amr, *retmr;

	uint32_t round_seq;
	bool corrupted;
	/* what the atomic target words hold now, as this side computes it */
	uint64_t atom_model[WORDS_PER_QP * MAX_QP];

	/* totals */
	uint64_t msgs[OP_COUNT], bytes[OP_COUNT];
	uint64_t rounds, phases, passes;
	unsigned dirs_run;	/* bit per direction that ran */
};

/* One run: what the options asked for and where it stands. */
struct mrv {
	struct mrv_opts o;
	struct mrv_state s;
};

struct phase {
	uint32_t pass;
	uint32_t dir;		/* 0: server requests, 1: client requests */
	uint32_t op;
	uint32_t size_idx;
	uint64_t size;
	uint32_t iters;
};

/* Everything both sides know about one message. */
struct mdesc {
	uint64_t data_seed;
	uint64_t lay_seed;
	uint32_t imm;
	unsigned misalign;	/* remote placement offset 0..7 */
	bool multi_r;		/* several SGEs on the requester's side */
	bool multi_p;		/* several receive SGEs on the responder's side */
	bool inl;		/* IBV_SEND_INLINE when it fits */
	unsigned extra;		/* receive room beyond the message */
	bool recv_buf;		/* WRITE_IMM receive with a (canary) buffer */
	unsigned wsel;		/* atomic word selector */
	bool cas_hit;		/* CMP_SWP compare equals current value */
	uint64_t a, b;		/* atomic operands */
};

struct layout {
	unsigned n;
	size_t start, end;	/* the slot: [start, end) */
	size_t off[MAX_SGE];
	size_t dlen[MAX_SGE];	/* message bytes in this SGE */
	uint32_t len[MAX_SGE];	/* SGE length (dlen + receive room) */
};

static inline int mtu_bytes(enum ibv_mtu m)
{
	return 128 << m;
}

/* Control channel messages (mr-verify-ctl.c). */
enum ctl_type { CTL_SYNC = 1, CTL_PHASE, CTL_READY, CTL_DONE, CTL_RESULT,
	CTL_REUSE };
extern const char *const ctl_name[];

struct ctl {
	uint32_t type;
	uint32_t fail;		/* nonzero: the sender's run failed */
	uint32_t wc_status;	/* failing completion status, 0 if none */
	uint32_t pad;
	uint64_t v[4];
	char text[CTL_TEXT];
};

#define FNV_INIT 0xcbf29ce484222325ull

/* Report a failure that is no completion status (fail_wc). */
#define fail(run, ...) fail_wc(run, 0, __VA_ARGS__)

/* mr-verify-ctl.c: time, output, failures, the control channel */
double now_s(void);
double uptime_s(void);
double elapsed_s(struct mrv *run);
void say(struct mrv *run, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void vsay(struct mrv *run, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void setup_error(struct mrv *run, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));
const char *wc_name(int status);
int parse_wc_status(const char *s);
void put32(uint8_t **p, uint32_t v);
void put64(uint8_t **p, uint64_t v);
uint32_t get32(const uint8_t **p);
uint64_t get64(const uint8_t **p);
int sock_write(struct mrv *run, const void *buf, size_t len, int tmo);
int sock_read(struct mrv *run, void *buf, size_t len, int tmo);
int ctl_tmo(struct mrv *run);
int ctl_send(struct mrv *run, const struct ctl *c);
void fail_wc(struct mrv *run, int wc_status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));
void detail(struct mrv *run, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void ctl_read(struct mrv *run, struct ctl *c, uint32_t want);
void peer_failed(struct mrv *run, const struct ctl *c)
	__attribute__((noreturn));
void ctl_recv(struct mrv *run, struct ctl *c, uint32_t want);
void ctl_simple(struct mrv *run, uint32_t type, uint64_t v0, uint64_t v1);
void finish(struct mrv *run, int wc_status, bool failed)
	__attribute__((noreturn));

/* mr-verify-plan.c: data, checksums, the plan and message layouts */
uint64_t mix(uint64_t h, uint64_t v);
void gen_data(uint64_t seed, uint8_t *out, size_t len);
uint8_t canary_at(size_t off);
void fill_canary(uint8_t *buf, size_t from, size_t to);
void fill_junk(uint8_t *buf, size_t from, size_t to);
uint64_t fnv(uint64_t h, const uint8_t *p, size_t n);
uint64_t fnv_layout(uint64_t h, const uint8_t *buf, const struct layout *lo);
uint64_t phase_key(struct mrv *run, const struct phase *ph);
void msg_desc(struct mrv *run, const struct phase *ph, uint32_t iter,
	      struct mdesc *d);
bool next_phase(struct mrv *run, struct phase *ph);
size_t stride_of(uint64_t size);
uint32_t round_width(struct mrv *run, const struct phase *ph, uint32_t left);
void make_layout(struct layout *lo, size_t slot, size_t stride, size_t len,
		 unsigned nsge, unsigned extra, uint64_t seed);
void contig_layout(struct layout *lo, size_t slot, size_t stride, size_t len,
		   unsigned misalign);
void copy_in(uint8_t *buf, const struct layout *lo, const uint8_t *src);
size_t layout_pos(const struct layout *lo, size_t m);

/* mr-verify-rounds.c: verification, completions, rounds */
int poll_counted(struct mrv *run, struct ibv_cq *cq, int n, struct ibv_wc *wc,
		 const char *what);
uint32_t atom_words(struct mrv *run);
void do_phase(struct mrv *run, const struct phase *ph);

/* mr-verify-setup.c: device, QPs, connection, buffers; option values */
int mtu_enum(int bytes);
uint64_t parse_num(struct mrv *run, const char *s, const char *what);
int resolve_sizes(struct mrv *run, const char *spec, int mtu, uint64_t *out,
		  bool bound, char *err, size_t errlen);
uint32_t parse_ops(struct mrv *run, const char *s);
void open_device(struct mrv *run);
uint32_t new_psn(void);
int qp_to_init(struct mrv *run, struct ibv_qp *qp);
void create_qps(struct mrv *run);
void connect_qps(struct mrv *run);
void tcp_connect(struct mrv *run);
int swap_blocks(struct mrv *run, const void *mine, void *theirs, size_t len,
		int tmo);
void exchange(struct mrv *run, void *mine, void *theirs, size_t len,
	      const char *what);
void handshake(struct mrv *run);
void setup_buffers(struct mrv *run);
void print_gid(char *out, size_t len, const union ibv_gid *g);

/* mr-verify.c: options, the run */
long range(struct mrv *run, const char *s, const char *what, long lo, long hi);
void summary(struct mrv *run, const char *tag);
void sync_peer(struct mrv *run);
void run_plan(struct mrv *run);

/* mr-verify-reuse.c: reuse after the expected error */
void on_usr1(int sig);
void reuse_hold(struct mrv *run);
void reuse_sync(struct mrv *run);
void reuse_after_error(struct mrv *run) __attribute__((noreturn));

#endif /* MR_VERIFY_H */
