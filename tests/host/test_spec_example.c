// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Host tests: the wire format as Documentation/metaroce/spec.rst writes it,
 * against the codec (kernel/proto/wire.c).
 *
 * spec.rst is read at run time, so an edit of the spec that the codec does
 * not follow (or the reverse) fails here. From its "Headers (HDR)" section
 * the test parses every header diagram (MR-HDR-1), the flags diagram and
 * flag table (MR-HDR-3, MR-VER-2), the opcode table and its abbreviations
 * (MR-HDR-2, MR-HDR-22, MR-HDR-23), the header sizes of MR-HDR-1 and the
 * per-opcode header lengths, and the "Example packet (informative)" section
 * (prose values, hex dump and ICRC; MR-ICRC-3, MR-ICRC-7).
 *
 * The only hand-written knowledge is in the tables marked "hand table":
 * which struct mr_pkt member a diagram field name stands for, which values
 * the codec accepts in it, which MR_HDR_* bit and MR_*_LEN a header name
 * means, which MR_F_* constant a flag name means, and which diagram field
 * each value of the example's prose names. Everything else (positions,
 * widths, sizes, header order per opcode, flag masks, example bytes and
 * values) comes from spec.rst. Anything the parser cannot read fails.
 *
 * spec.rst is found through $MR_SPEC_RST if set (used to run this test
 * against an edited copy), else relative to this source file (the Makefile
 * compiles it by absolute path), else relative to the binary
 * (tests/host/build/). A missing spec fails every test that reads it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <setjmp.h>
#include <ctype.h>
#include <unistd.h>
#include <cmocka.h>

#include "wire.h"

#define SPEC_REL	"Documentation/metaroce/spec.rst"
#define BUFSZ		512
#define MAX_PARTS	48
#define MAX_DIAGS	16
#define MAX_OPS		32
#define MAX_FLAGS	16

/* ------------------------------------------------------------------ */
/* Loading spec.rst                                                     */
/* ------------------------------------------------------------------ */

static char spec_path[4096];
static char *spec_text;		/* kept for the life of the program */
static char **line;		/* line[i]: NUL-terminated, no '\n' */
static int nline;

static void resolve_spec_path(void)
{
	const char *env = getenv("MR_SPEC_RST");
	char exe[2048];
	ssize_t n;
	char *s;

	if (env && *env) {
		snprintf(spec_path, sizeof(spec_path), "%s", env);
		return;
	}
	/* tests/host/test_spec_example.c -> ../../ */
	if (__FILE__[0] == '/') {
		snprintf(spec_path, sizeof(spec_path), "%s", __FILE__);
		s = strrchr(spec_path, '/');
		*s = '\0';
		snprintf(s, sizeof(spec_path) - (size_t)(s - spec_path),
			 "/../../%s", SPEC_REL);
		return;
	}
	/* tests/host/build/test_spec_example -> ../../../ */
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0) {
		snprintf(spec_path, sizeof(spec_path), "%s", SPEC_REL);
		return;
	}
	exe[n] = '\0';
	s = strrchr(exe, '/');
	*s = '\0';
	snprintf(spec_path, sizeof(spec_path), "%s/../../../%s", exe,
		 SPEC_REL);
}

/* Load spec.rst once; fail the calling test if it cannot be read. */
static void load_spec(void)
{
	char *t;
	FILE *f;
	long sz;
	int i, n;

	if (spec_text)
		return;
	resolve_spec_path();
	f = fopen(spec_path, "r");
	if (!f)
		fail_msg("cannot open the spec %s", spec_path);
	if (fseek(f, 0, SEEK_END) || (sz = ftell(f)) <= 0 ||
	    fseek(f, 0, SEEK_SET)) {
		fclose(f);
		fail_msg("cannot size the spec %s", spec_path);
	}
	t = malloc((size_t)sz + 1);
	assert_non_null(t);
	if (fread(t, 1, (size_t)sz, f) != (size_t)sz) {
		fclose(f);
		free(t);
		fail_msg("cannot read the spec %s", spec_path);
	}
	fclose(f);
	t[sz] = '\0';

	n = 1;
	for (i = 0; i < sz; i++)
		if (t[i] == '\n')
			n++;
	line = calloc((size_t)n, sizeof(*line));
	assert_non_null(line);
	nline = 0;
	line[nline++] = t;
	for (i = 0; i < sz; i++) {
		if (t[i] != '\n')
			continue;
		t[i] = '\0';
		if (i + 1 < sz)
			line[nline++] = t + i + 1;
	}
	for (i = 0; i < nline; i++) {
		size_t l = strlen(line[i]);

		while (l && (line[i][l - 1] == ' ' || line[i][l - 1] == '\r'))
			line[i][--l] = '\0';
	}
	spec_text = t;
}

/* ------------------------------------------------------------------ */
/* reStructuredText structure: headings, sections, literal blocks      */
/* ------------------------------------------------------------------ */

static bool blank(const char *s)
{
	return !*s;
}

/* Rank of the heading whose title is line @i (1 '=', 2 '-', 3 '~', 4 '^'). */
static int heading_rank(int i)
{
	static const char marks[] = "=-~^";
	const char *u, *m;
	size_t k;

	if (i + 1 >= nline || blank(line[i]) || isspace((u8)line[i][0]))
		return 0;
	u = line[i + 1];
	m = strchr(marks, u[0]);
	if (!u[0] || !m || strlen(u) < 3 || strlen(u) < strlen(line[i]))
		return 0;
	for (k = 0; u[k]; k++)
		if (u[k] != u[0])
			return 0;
	return (int)(m - marks) + 1;
}

struct section {
	int title;	/* line of the title */
	int end;	/* first line after the section */
	int rank;
};

/* The section titled @title (exactly) of rank @rank, or fail. */
static struct section find_section(const char *title, int rank)
{
	struct section s = { -1, nline, rank };
	int i;

	for (i = 0; i < nline; i++) {
		if (heading_rank(i) != rank || strcmp(line[i], title))
			continue;
		if (s.title >= 0)
			fail_msg("spec: two sections titled \"%s\"", title);
		s.title = i;
	}
	if (s.title < 0)
		fail_msg("spec %s: no section \"%s\"", spec_path, title);
	for (i = s.title + 2; i < nline; i++) {
		int r = heading_rank(i);

		if (r && r <= rank) {
			s.end = i;
			break;
		}
	}
	return s;
}

struct block {
	int first, last;	/* literal block lines [first, last] */
	int heading;		/* title line of the innermost heading */
};

/*
 * The literal blocks of lines [@from, @to): a paragraph ending in "::"
 * followed by indented lines. Returns how many (at most @max).
 */
static int literal_blocks(int from, int to, struct block *b, int max)
{
	int i, n = 0, head = -1;

	for (i = from; i < to; i++) {
		size_t l = strlen(line[i]);
		int j, last;

		if (heading_rank(i))
			head = i;
		if (l < 2 || strcmp(line[i] + l - 2, "::"))
			continue;
		/* Skip the blank line(s), then take every indented line. */
		for (j = i + 1; j < to && blank(line[j]); j++)
			;
		last = -1;
		for (; j < to && (blank(line[j]) || isspace((u8)line[j][0]));
		     j++)
			if (!blank(line[j])) {
				if (last < 0)
					b[n].first = j;
				last = j;
			}
		if (last < 0)
			continue;
		if (n == max)
			fail_msg("spec: more than %d literal blocks", max);
		b[n].last = last;
		b[n].heading = head;
		n++;
		i = last;
	}
	return n;
}

/* Join the paragraph starting at line @i into @buf; returns its end. */
static int join_paragraph(int i, int to, char *buf, size_t bufsz)
{
	size_t used = 0;

	buf[0] = '\0';
	for (; i < to && !blank(line[i]); i++) {
		const char *s = line[i];

		while (*s == ' ')
			s++;
		used += (size_t)snprintf(buf + used,
					 used < bufsz ? bufsz - used : 0,
					 "%s%s", used ? " " : "", s);
		if (used >= bufsz)
			fail_msg("spec: paragraph at line %d too long", i + 1);
	}
	return i;
}

/*
 * The paragraph containing @phrase within [@from, @to), joined into @buf
 * with single spaces (so phrases may wrap). Fails unless exactly one
 * paragraph contains it.
 */
static void paragraph(int from, int to, const char *phrase, char *buf,
		      size_t bufsz)
{
	char tmp[4096];
	int i, end, found = 0;

	for (i = from; i < to; i = end) {
		while (i < to && blank(line[i]))
			i++;
		if (i == to)
			break;
		end = join_paragraph(i, to, tmp, sizeof(tmp));
		if (!strstr(tmp, phrase))
			continue;
		if (found++)
			fail_msg("spec: \"%s\" in two paragraphs", phrase);
		snprintf(buf, bufsz, "%s", tmp);
	}
	if (!found)
		fail_msg("spec: no paragraph containing \"%s\"", phrase);
}

/* ------------------------------------------------------------------ */
/* Header diagrams (MR-HDR-1)                                           */
/* ------------------------------------------------------------------ */

/*
 * One field of a diagram row. A field drawn over several rows ("..., bits
 * 63..32" and "..., bits 31..0") gives one part per row; @lo is the lowest
 * value bit a part carries.
 */
struct part {
	char hdr[8];
	char raw[96];		/* text as drawn */
	char name[96];		/* without "(...)" and ", bits H..L" */
	u32 off;		/* byte offset of the 32-bit word */
	unsigned int bit;	/* first bit, 0 = MSB of the word */
	unsigned int width;
	unsigned int lo;	/* value bits lo .. lo + width - 1 */
	bool split;		/* drawn with ", bits H..L" */
	bool rsvd;		/* "Rsvd" / "Reserved" */
	bool le;		/* drawn as "little-endian" (the ICRC) */
};

struct diagram {
	char hdr[8];
	int line;		/* spec line of the diagram, for messages */
	u32 size;		/* bytes: last row offset + 4 */
	int nparts;
	struct part part[MAX_PARTS];
};

static char perr[256];

#define PERR(...) (snprintf(perr, sizeof(perr), __VA_ARGS__), perr)

static char at(const char *s, size_t col)
{
	return col < strlen(s) ? s[col] : '\0';
}

static void normalize_name(const char *raw, char *out, size_t outsz)
{
	size_t o = 0;
	int depth = 0;
	bool space = false;

	for (; *raw && o + 1 < outsz; raw++) {
		if (*raw == '(') {
			depth++;
			continue;
		}
		if (*raw == ')') {
			depth--;
			continue;
		}
		if (depth)
			continue;
		if (isspace((u8)*raw)) {
			space = o != 0;
			continue;
		}
		if (space)
			out[o++] = ' ';
		space = false;
		out[o++] = *raw;
	}
	out[o] = '\0';
}

/* Parse one field's text: name, ", bits H..L" part, reserved, LE. */
static const char *parse_field_text(const char *text, struct part *f)
{
	char tmp[96];
	const char *b;
	unsigned int hi, lo;
	int n = 0;

	snprintf(f->raw, sizeof(f->raw), "%s", text);
	snprintf(tmp, sizeof(tmp), "%s", text);
	f->lo = 0;
	f->split = false;
	b = strstr(tmp, ", bits ");
	if (b) {
		const char *next;

		/* The last ", bits " names the value bits of this row. */
		while ((next = strstr(b + 1, ", bits ")))
			b = next;
		if (sscanf(b, ", bits %u..%u%n", &hi, &lo, &n) != 2 ||
		    b[n] || hi < lo)
			return PERR("field \"%s\": bad \", bits H..L\"", text);
		if (hi - lo + 1 != f->width)
			return PERR("field \"%s\" drawn %u bits wide", text,
				    f->width);
		f->lo = lo;
		f->split = true;
		tmp[b - tmp] = '\0';
	}
	normalize_name(tmp, f->name, sizeof(f->name));
	if (!f->name[0])
		return PERR("field without a name: \"%s\"", text);
	f->rsvd = !strncmp(f->name, "Rsvd", 4) ||
		  !strncmp(f->name, "Reserved", 8);
	f->le = strstr(text, "little-endian") != NULL;
	return NULL;
}

static bool is_border(const char *s, size_t c)
{
	unsigned int i;

	/* '+' at every bit boundary, '-' in between, nothing after. */
	if (strlen(s) != c + 64)
		return false;
	for (i = 0; i <= 64; i++)
		if (s[c - 1 + i] != (i % 2 ? '-' : '+'))
			return false;
	return true;
}

/*
 * Parse a bit diagram (RFC style, as MR-HDR-1 describes it) from @n lines
 * into @d. Returns NULL, or what could not be read.
 */
static const char *parse_bit_diagram(const char *const *l, int n,
				     struct diagram *d)
{
	size_t c = 0;
	int r, row = 0;
	unsigned int k;

	d->nparts = 0;
	d->size = 0;
	/* The ruler: "0 1 2 ... 9 0 1", bit i at column c + 2 i. */
	for (r = 0; r < n; r++) {
		const char *s = l[r];

		while (*s == ' ')
			s++;
		if (!strncmp(s, "0 1 2 3 4 5 6 7 8 9 0 1", 23))
			break;
	}
	if (r == n || r == 0)
		return PERR("no bit ruler under a tens ruler");
	c = strspn(l[r], " ");
	if (strlen(l[r]) != c + 63)
		return PERR("bit ruler is not 32 bits wide");
	for (k = 0; k < 32; k++) {
		if (l[r][c + 2 * k] != (char)('0' + k % 10) ||
		    (k < 31 && l[r][c + 2 * k + 1] != ' '))
			return PERR("bit ruler: bit %u misplaced", k);
		if (k % 10 == 0 && at(l[r - 1], c + 2 * k) !=
		    (char)('0' + k / 10))
			return PERR("tens ruler: %u misplaced", k);
	}
	if (c < 1)
		return PERR("bit ruler leaves no room for a border");
	r++;
	if (r >= n || !is_border(l[r], c))
		return PERR("no border under the ruler");
	for (r++; r < n; r += 2) {
		const char *s = l[r];
		char num[16], *end;
		unsigned long off;
		size_t b, prev;

		if (blank(s))
			break;
		if (r + 1 >= n || !is_border(l[r + 1], c))
			return PERR("row %d: no border under it", row);
		/* Byte offset, right of nothing but spaces, left of '|'. */
		if (c - 1 >= sizeof(num))
			return PERR("row %d: offset column too wide", row);
		memcpy(num, s, c - 1);
		num[c - 1] = '\0';
		off = strtoul(num, &end, 10);
		if (end == num || strspn(num, " ") == c - 1 ||
		    strspn(end, " ") != strlen(end))
			return PERR("row %d: no byte offset", row);
		if (off != 4UL * (unsigned long)row)
			return PERR("row %d: byte offset %lu, want %d", row,
				    off, 4 * row);
		if (strlen(s) != c + 64 || s[c - 1] != '|' || s[c + 63] != '|')
			return PERR("row %d: not 32 bits wide", row);
		/* '|' only at bit boundaries; fields between them. */
		prev = 0;
		for (b = 1; b <= 64; b++) {
			char ch = s[c - 1 + b];
			struct part *f;
			char text[96];
			size_t len;
			const char *e;

			if (ch != '|')
				continue;
			if (b % 2)
				return PERR("row %d: '|' between bits", row);
			if (d->nparts == MAX_PARTS)
				return PERR("too many fields");
			f = &d->part[d->nparts++];
			memset(f, 0, sizeof(*f));
			snprintf(f->hdr, sizeof(f->hdr), "%s", d->hdr);
			f->off = (u32)off;
			f->bit = (unsigned int)prev / 2;
			f->width = (unsigned int)(b - prev) / 2;
			len = b - prev - 1;
			if (len >= sizeof(text))
				return PERR("row %d: field too long", row);
			memcpy(text, s + c + prev, len);
			text[len] = '\0';
			/* Trim. */
			while (len && text[len - 1] == ' ')
				text[--len] = '\0';
			e = parse_field_text(text + strspn(text, " "), f);
			if (e)
				return e;
			prev = b;
		}
		row++;
	}
	if (!row)
		return PERR("diagram without rows");
	for (; r < n; r++)
		if (!blank(l[r]))
			return PERR("text after the diagram: \"%s\"", l[r]);
	d->size = 4 * (u32)row;
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Flags diagram and flag table (MR-HDR-3)                              */
/* ------------------------------------------------------------------ */

struct flagdef {
	char name[16];
	u16 mask;
	unsigned int hi, lo;	/* bit numbers drawn, 0 = LSB */
	bool rsvd;
};

struct token {
	size_t start, end;	/* columns [start, end) */
	char text[24];
};

static int tokens(const char *s, struct token *t, int max)
{
	size_t i = 0, len = strlen(s);
	int n = 0;

	while (i < len && n < max) {
		size_t j;

		while (i < len && s[i] == ' ')
			i++;
		if (i == len)
			break;
		for (j = i; j < len && s[j] != ' '; j++)
			;
		t[n].start = i;
		t[n].end = j;
		snprintf(t[n].text, sizeof(t[n].text), "%.*s", (int)(j - i),
			 s + i);
		n++;
		i = j;
	}
	return n;
}

/*
 * The flags diagram: a "bit:" line, a box of named cells, a "mask:" line;
 * every bit and mask token sits under its cell. Returns NULL or an error.
 */
static const char *parse_flags_diagram(const char *const *l, int n,
				       struct flagdef *fl, int *nfl)
{
	struct token bt[32], mt[32];
	size_t plus[MAX_FLAGS + 1];
	int nb, nm, np = 0, r, i, j;
	const char *box, *names;

	for (r = 0; r < n; r++)
		if (!strncmp(l[r] + strspn(l[r], " "), "bit:", 4))
			break;
	if (r + 4 >= n)
		return PERR("flags: no \"bit:\" line with a box under it");
	box = l[r + 1];
	names = l[r + 2];
	if (strcmp(box, l[r + 3]))
		return PERR("flags: box borders differ");
	if (strncmp(l[r + 4] + strspn(l[r + 4], " "), "mask:", 5))
		return PERR("flags: no \"mask:\" line under the box");
	for (i = 0; box[i]; i++) {
		if (box[i] == '+') {
			if (np == MAX_FLAGS + 1)
				return PERR("flags: too many cells");
			plus[np++] = (size_t)i;
		} else if (box[i] != '-' && !(box[i] == ' ' && !np)) {
			return PERR("flags: bad border");
		}
	}
	if (np < 2 || strlen(box) != plus[np - 1] + 1 ||
	    strlen(names) != strlen(box))
		return PERR("flags: box not closed");
	for (i = 0; names[i]; i++)
		if ((names[i] == '|') != (box[i] == '+'))
			return PERR("flags: '|' not under a '+'");
	nb = tokens(l[r], bt, 32);
	nm = tokens(l[r + 4], mt, 32);
	*nfl = np - 1;
	for (j = 0; j + 1 < np; j++) {
		struct flagdef *f = &fl[j];
		size_t a = plus[j], b = plus[j + 1];
		char bits[64] = "", masks[64] = "", cell[32];
		unsigned int x, y;
		int cnt = 0;

		snprintf(cell, sizeof(cell), "%.*s", (int)(b - a - 1),
			 names + a + 1);
		normalize_name(cell, f->name, sizeof(f->name));
		f->rsvd = !strcmp(f->name, "reserved");
		for (i = 1; i < nb; i++)
			if (bt[i].start > a && bt[i].end <= b)
				snprintf(bits + strlen(bits),
					 sizeof(bits) - strlen(bits), "%s ",
					 bt[i].text);
		for (i = 1; i < nm; i++)
			if (mt[i].start > a && mt[i].end <= b)
				snprintf(masks + strlen(masks),
					 sizeof(masks) - strlen(masks), "%s ",
					 mt[i].text);
		if (sscanf(bits, "%u .. %u %n", &x, &y, &cnt) == 2 &&
		    !bits[cnt]) {
			f->hi = x;
			f->lo = y;
		} else if (sscanf(bits, "%u %n", &x, &cnt) == 1 &&
			   !bits[cnt]) {
			f->hi = f->lo = x;
		} else {
			return PERR("flags: cell \"%s\": bits \"%s\"",
				    f->name, bits);
		}
		if (f->hi > 15 || f->lo > f->hi)
			return PERR("flags: cell \"%s\": bits %u..%u",
				    f->name, f->hi, f->lo);
		if (sscanf(masks, "0x%hx %n", &f->mask, &cnt) != 1 ||
		    masks[cnt])
			return PERR("flags: cell \"%s\": mask \"%s\"",
				    f->name, masks);
	}
	/* Every token sits in some cell. */
	for (i = 1; i < nb; i++) {
		for (j = 0; j + 1 < np; j++)
			if (bt[i].start > plus[j] && bt[i].end <= plus[j + 1])
				break;
		if (j + 1 == np)
			return PERR("flags: bit \"%s\" under no cell",
				    bt[i].text);
	}
	for (i = 1; i < nm; i++) {
		for (j = 0; j + 1 < np; j++)
			if (mt[i].start > plus[j] && mt[i].end <= plus[j + 1])
				break;
		if (j + 1 == np)
			return PERR("flags: mask \"%s\" under no cell",
				    mt[i].text);
	}
	return NULL;
}

/* ------------------------------------------------------------------ */
/* The HDR section as a model                                          */
/* ------------------------------------------------------------------ */

/* Hand table: header names of the spec and what the codec calls them. */
static const struct {
	const char *name;
	u16 bit;		/* enum mr_hdr_bit, 0: MBH and ICRC */
	u32 len;
} hdr_tab[] = {
	{ "MBH", 0, MR_MBH_LEN },	{ "DXH", MR_HDR_DXH, MR_DXH_LEN },
	{ "RXH", MR_HDR_RXH, MR_RXH_LEN },
	{ "IMM", MR_HDR_IMM, MR_IMM_LEN },
	{ "IETH", MR_HDR_IETH, MR_IETH_LEN },
	{ "AXH", MR_HDR_AXH, MR_AXH_LEN },
	{ "ATKH", MR_HDR_ATKH, MR_ATKH_LEN },
	{ "DETH", MR_HDR_DETH, MR_DETH_LEN },
	{ "AKH", MR_HDR_AKH, MR_AKH_LEN },
	{ "NKH", MR_HDR_NKH, MR_NKH_LEN },
	{ "HLH", MR_HDR_HLH, MR_HLH_LEN },
	{ "ICRC", 0, MR_ICRC_LEN },
};

/* Hand table: flag names of the spec and the codec's masks. */
static const struct {
	const char *name;
	u16 mask;
} flag_tab[] = {
	{ "ACKREQ", MR_F_ACKREQ }, { "SE", MR_F_SE },
	{ "FIRST", MR_F_FIRST },   { "LAST", MR_F_LAST },
	{ "RETX", MR_F_RETX },	   { "ECE", MR_F_ECE },
	{ "TRIM", MR_F_TRIM },
};

struct opdef {
	u8 code;
	char name[24];
	int nhdrs;
	char hdr[8][8];		/* extension headers, in table order */
	bool payload;
	u16 flags;		/* "Flags allowed", as masks */
	char pkts[8];
};

static struct {
	bool parsed;
	struct section hdr, example, opcodes, flags;
	struct diagram diag[MAX_DIAGS];
	int ndiag;
	struct flagdef flag[MAX_FLAGS];
	int nflag;
	struct opdef op[MAX_OPS];
	int nop;
	struct block hexdump;
	bool have_hexdump;
} S;

static struct diagram *diag_find(const char *hdr)
{
	int i;

	for (i = 0; i < S.ndiag; i++)
		if (!strcmp(S.diag[i].hdr, hdr))
			return &S.diag[i];
	return NULL;
}

static struct diagram *diag_get(const char *hdr)
{
	struct diagram *d = diag_find(hdr);

	if (!d)
		fail_msg("spec: no diagram for header %s", hdr);
	return d;
}

static const struct opdef *op_by_code(u8 code)
{
	int i;

	for (i = 0; i < S.nop; i++)
		if (S.op[i].code == code)
			return &S.op[i];
	return NULL;
}

static const struct opdef *op_by_name(const char *name)
{
	int i;

	for (i = 0; i < S.nop; i++)
		if (!strcmp(S.op[i].name, name))
			return &S.op[i];
	return NULL;
}

/* Mask of the flag the spec names @name (diagram), 0 if none. */
static u16 spec_flag(const char *name)
{
	int i;

	for (i = 0; i < S.nflag; i++)
		if (!S.flag[i].rsvd && !strcmp(S.flag[i].name, name))
			return S.flag[i].mask;
	return 0;
}

static bool op_carries(const struct opdef *o, const char *hdr)
{
	int i;

	if (!strcmp(hdr, "MBH") || !strcmp(hdr, "ICRC"))
		return true;
	for (i = 0; i < o->nhdrs; i++)
		if (!strcmp(o->hdr[i], hdr))
			return true;
	return false;
}

/*
 * Byte offset of @hdr in a packet of @code, from the opcode table's order
 * and the diagrams' sizes (MR-HDR-1, MR-HDR-2); -1 if it has none. The
 * ICRC follows the payload: not handled here.
 */
static int hdr_offset(u8 code, const char *hdr)
{
	const struct opdef *o = op_by_code(code);
	int i, off;

	if (!o)
		fail_msg("opcode 0x%02x not in the spec's opcode table", code);
	if (!strcmp(hdr, "MBH"))
		return 0;
	off = (int)diag_get("MBH")->size;
	for (i = 0; i < o->nhdrs; i++) {
		if (!strcmp(o->hdr[i], hdr))
			return off;
		off += (int)diag_get(o->hdr[i])->size;
	}
	return -1;
}

/* MBH + extension headers of @code, by the spec. */
static u32 spec_hdr_len(const struct opdef *o)
{
	u32 len = diag_get("MBH")->size;
	int i;

	for (i = 0; i < o->nhdrs; i++)
		len += diag_get(o->hdr[i])->size;
	return len;
}

/* The header names a section title gives: "(ABC)" groups, else word 1. */
static int title_names(const char *title, char names[][8], int max)
{
	const char *p = title;
	int n = 0;

	while ((p = strchr(p, '('))) {
		size_t k = 1;

		while (isupper((u8)p[k]))
			k++;
		if (p[k] == ')' && k > 1 && n < max)
			snprintf(names[n++], 8, "%.*s", (int)(k - 1), p + 1);
		p++;
	}
	if (!n)
		snprintf(names[n++], 8, "%.*s", (int)strcspn(title, " "),
			 title);
	return n;
}

static void parse_opcode_table(void)
{
	static const char *const want[] = {
		"Code", "Name", "Headers after MBH", "Payload",
		"Flags allowed", "Pkts",
	};
	struct section s = S.opcodes;
	size_t cs[8], ce[8];
	int col[6], ncol = 0, i, j, t = -1;
	char abbr[16][2][16], par[1024], *p;
	int nabbr = 0;

	for (i = s.title + 2; i < s.end; i++)
		if (line[i][0] == '=' &&
		    strspn(line[i], "= ") == strlen(line[i])) {
			t = i;
			break;
		}
	if (t < 0 || t + 3 >= s.end)
		fail_msg("spec: no opcode table in \"Opcodes\"");
	for (i = 0; line[t][i] && ncol < 8;) {
		cs[ncol] = (size_t)i;
		while (line[t][i] == '=')
			i++;
		ce[ncol++] = (size_t)i;
		while (line[t][i] == ' ')
			i++;
	}
	for (j = 0; j < 6; j++) {
		col[j] = -1;
		for (i = 0; i < ncol; i++) {
			char h[32];

			snprintf(h, sizeof(h), "%.*s",
				 (int)(i + 1 < ncol ? cs[i + 1] - cs[i] :
				       strlen(line[t + 1]) - cs[i]),
				 line[t + 1] + cs[i]);
			while (strlen(h) && h[strlen(h) - 1] == ' ')
				h[strlen(h) - 1] = '\0';
			if (!strcmp(h, want[j]))
				col[j] = i;
		}
		if (col[j] < 0)
			fail_msg("spec: opcode table has no column \"%s\"",
				 want[j]);
	}
	if (strcmp(line[t + 2], line[t]))
		fail_msg("spec: opcode table header not closed");

	/* "Flag abbreviations: AR = ACKREQ, SE, ..." up to the first '.'. */
	paragraph(s.title, s.end, "Flag abbreviations:", par, sizeof(par));
	p = strstr(par, "Flag abbreviations:") + strlen("Flag abbreviations:");
	p[strcspn(p, ".")] = '\0';
	for (p = strtok(p, ","); p; p = strtok(NULL, ",")) {
		char a[16], b[16];
		int n = 0;

		if (nabbr == 16)
			fail_msg("spec: too many flag abbreviations");
		if (sscanf(p, " %15s = %15s %n", a, b, &n) == 2 && !p[n]) {
			;
		} else if (sscanf(p, " %15s %n", a, &n) == 1 && !p[n]) {
			snprintf(b, sizeof(b), "%s", a);
		} else {
			fail_msg("spec: flag abbreviation \"%s\"", p);
		}
		if (!spec_flag(b))
			fail_msg("spec: abbreviation %s of unknown flag %s", a,
				 b);
		snprintf(abbr[nabbr][0], 16, "%s", a);
		snprintf(abbr[nabbr][1], 16, "%s", b);
		nabbr++;
	}

	S.nop = 0;
	for (i = t + 3; i < s.end && strcmp(line[i], line[t]); i++) {
		struct opdef *o;
		char cell[6][64], *tok;
		unsigned int code;
		int n = 0;

		if (S.nop == MAX_OPS)
			fail_msg("spec: too many opcodes");
		o = &S.op[S.nop++];
		memset(o, 0, sizeof(*o));
		for (j = 0; j < 6; j++) {
			int c = col[j];
			size_t a = cs[c], len = strlen(line[i]);
			size_t e = c + 1 < ncol ? cs[c + 1] : len;

			if (a > len)
				a = len;
			if (e > len)
				e = len;
			/* Text must not spill over a column gap. */
			if (c + 1 < ncol && e > ce[c] &&
			    strspn(line[i] + ce[c], " ") < e - ce[c])
				fail_msg("spec line %d: cell spills", i + 1);
			snprintf(cell[j], sizeof(cell[j]), "%.*s",
				 (int)(e - a), line[i] + a);
			while (strlen(cell[j]) &&
			       cell[j][strlen(cell[j]) - 1] == ' ')
				cell[j][strlen(cell[j]) - 1] = '\0';
		}
		if (sscanf(cell[0], "0x%2x%n", &code, &n) != 1 || cell[0][n])
			fail_msg("spec line %d: opcode \"%s\"", i + 1,
				 cell[0]);
		o->code = (u8)code;
		if (strlen(cell[1]) >= sizeof(o->name) ||
		    strlen(cell[5]) >= sizeof(o->pkts))
			fail_msg("spec line %d: cell too long", i + 1);
		snprintf(o->name, sizeof(o->name), "%.23s", cell[1]);
		if (strcmp(cell[2], "(none)"))
			for (tok = strtok(cell[2], " "); tok;
			     tok = strtok(NULL, " ")) {
				if (o->nhdrs == 8 || strlen(tok) >= 8)
					fail_msg("spec line %d: headers \"%s\"",
						 i + 1, tok);
				snprintf(o->hdr[o->nhdrs++], 8, "%.7s", tok);
			}
		if (!strcmp(cell[3], "yes"))
			o->payload = true;
		else if (strcmp(cell[3], "no"))
			fail_msg("spec line %d: payload \"%s\"", i + 1,
				 cell[3]);
		if (strcmp(cell[4], "(none)"))
			for (tok = strtok(cell[4], " "); tok;
			     tok = strtok(NULL, " ")) {
				for (j = 0; j < nabbr; j++)
					if (!strcmp(abbr[j][0], tok))
						break;
				if (j == nabbr)
					fail_msg("spec line %d: flag \"%s\"",
						 i + 1, tok);
				o->flags |= spec_flag(abbr[j][1]);
			}
		snprintf(o->pkts, sizeof(o->pkts), "%.7s", cell[5]);
	}
	if (i == s.end || !S.nop)
		fail_msg("spec: opcode table not closed");
}

/* Parse the HDR section once: diagrams, flags, opcode table, example. */
static void parse_spec(void)
{
	struct block b[64];
	int nb, i, k, heading = -2, used = 0;
	char names[8][8];
	int nnames = 0;
	const char *e;

	load_spec();
	if (S.parsed)
		return;
	memset(&S, 0, sizeof(S));
	S.hdr = find_section("Headers (HDR)", 1);
	S.example = find_section("Example packet (informative)", 2);
	S.opcodes = find_section("Opcodes", 2);
	S.flags = find_section("Flags", 3);
	if (S.example.title < S.hdr.title || S.example.end > S.hdr.end ||
	    S.opcodes.title < S.hdr.title || S.opcodes.end > S.hdr.end ||
	    S.flags.title < S.hdr.title || S.flags.end > S.hdr.end)
		fail_msg("spec: Example packet, Opcodes and Flags must be in Headers (HDR)");

	nb = literal_blocks(S.hdr.title, S.hdr.end, b, 64);
	for (i = 0; i < nb; i++) {
		const char *const *l = (const char *const *)&line[b[i].first];
		int n = b[i].last - b[i].first + 1;
		bool box = false, bits = false, bar = false;

		for (k = 0; k < n; k++) {
			const char *s = l[k] + strspn(l[k], " ");

			box |= !strncmp(s, "+-+-+", 5);
			bits |= !strncmp(s, "bit:", 4);
			bar |= strchr(s, '|') || strstr(s, "+-");
		}
		if (b[i].heading != heading) {
			if (heading >= 0 && used && used != nnames)
				fail_msg("spec line %d: %d diagrams for %d headers",
					 heading + 1, used, nnames);
			heading = b[i].heading;
			nnames = title_names(line[heading], names, 8);
			used = 0;
		}
		if (box) {
			struct diagram *d;

			if (used == nnames)
				fail_msg("spec line %d: more diagrams than headers in \"%s\"",
					 b[i].first + 1, line[heading]);
			if (S.ndiag == MAX_DIAGS)
				fail_msg("spec: too many diagrams");
			d = &S.diag[S.ndiag++];
			snprintf(d->hdr, sizeof(d->hdr), "%s", names[used++]);
			d->line = b[i].first + 1;
			if (diag_find(d->hdr) != d)
				fail_msg("spec: two diagrams for %s", d->hdr);
			e = parse_bit_diagram(l, n, d);
			if (e)
				fail_msg("spec line %d: %s diagram: %s",
					 b[i].first + 1, d->hdr, e);
		} else if (bits) {
			if (S.nflag)
				fail_msg("spec: two flags diagrams");
			e = parse_flags_diagram(l, n, S.flag, &S.nflag);
			if (e)
				fail_msg("spec line %d: %s", b[i].first + 1, e);
		} else if (heading == S.example.title) {
			if (S.have_hexdump)
				fail_msg("spec: two literal blocks in the example");
			S.hexdump = b[i];
			S.have_hexdump = true;
		} else if (bar) {
			fail_msg("spec line %d: a diagram this test cannot read",
				 b[i].first + 1);
		}
	}
	if (heading >= 0 && used && used != nnames)
		fail_msg("spec line %d: %d diagrams for %d headers",
			 heading + 1, used, nnames);
	if (!S.nflag)
		fail_msg("spec: no flags diagram");
	if (!S.have_hexdump)
		fail_msg("spec: no hex dump in the example packet");
	/* Every header the codec has is drawn, and nothing else. */
	for (i = 0; i < (int)MR_ARRAY_SIZE(hdr_tab); i++)
		diag_get(hdr_tab[i].name);
	for (i = 0; i < S.ndiag; i++) {
		for (k = 0; k < (int)MR_ARRAY_SIZE(hdr_tab); k++)
			if (!strcmp(hdr_tab[k].name, S.diag[i].hdr))
				break;
		if (k == (int)MR_ARRAY_SIZE(hdr_tab))
			fail_msg("spec: diagram of unknown header %s",
				 S.diag[i].hdr);
	}
	parse_opcode_table();
	for (i = 0; i < S.nop; i++)
		for (k = 0; k < S.op[i].nhdrs; k++)
			diag_get(S.op[i].hdr[k]);
	S.parsed = true;
}

/* ------------------------------------------------------------------ */
/* Diagram field -> codec: the hand table                               */
/* ------------------------------------------------------------------ */

#define ACCESSOR(id, member)						\
static void set_##id(struct mr_pkt *p, u64 v) { p->member = v; }	\
static u64 get_##id(const struct mr_pkt *p) { return p->member; }

ACCESSOR(flags, flags)
ACCESSOR(path, path)
ACCESSOR(dqpn, dqpn)
ACCESSOR(psn, psn)
ACCESSOR(sqpn, sqpn)
ACCESSOR(ts, ts)
ACCESSOR(dxh_msn, dxh.msn)
ACCESSOR(dxh_offset, dxh.offset)
ACCESSOR(dxh_msg_len, dxh.msg_len)
ACCESSOR(dxh_ssn, dxh.ssn)
ACCESSOR(rxh_va, rxh.va)
ACCESSOR(rxh_rkey, rxh.rkey)
ACCESSOR(imm, imm)
ACCESSOR(inv_rkey, inv_rkey)
ACCESSOR(axh_va, axh.va)
ACCESSOR(axh_rkey, axh.rkey)
ACCESSOR(axh_swap_add, axh.swap_add)
ACCESSOR(axh_compare, axh.compare)
ACCESSOR(atomic_orig, atomic_orig)
ACCESSOR(deth_qkey, deth.qkey)
ACCESSOR(akh_cum_psn, akh.cum_psn)
ACCESSOR(akh_msn, akh.msn)
ACCESSOR(akh_ts_echo, akh.ts_echo)
ACCESSOR(akh_ce_count, akh.ce_count)
ACCESSOR(akh_pkt_count, akh.pkt_count)
ACCESSOR(akh_credit, akh.credit)
ACCESSOR(akh_sack0, akh.sack[0])
ACCESSOR(akh_sack1, akh.sack[1])
ACCESSOR(akh_sack2, akh.sack[2])
ACCESSOR(akh_sack3, akh.sack[3])
ACCESSOR(nkh_reason, nkh.reason)
ACCESSOR(nkh_rnr_timer, nkh.rnr_timer)
ACCESSOR(nkh_nack_psn, nkh.nack_psn)
ACCESSOR(hlh_rev_minor, hlh.rev_minor)
ACCESSOR(hlh_hflags, hlh.hflags)
ACCESSOR(hlh_caps, hlh.caps)
ACCESSOR(hlh_max_read_range, hlh.max_read_range)

/* MR-HDR-16: the DETH source QPN repeats the MBH's; set both. */
static void set_deth_sqpn(struct mr_pkt *p, u64 v)
{
	p->deth.src_qpn = (u32)v;
	p->sqpn = (u32)v;
}

static u64 get_deth_sqpn(const struct mr_pkt *p)
{
	return p->deth.src_qpn;
}

static u16 op_flags_ok(u8 op)
{
	return mr_op_desc(op)->flags_ok;
}

/*
 * MR-HDR-4: a non-zero offset needs FIRST clear; with TRIM (payload cut)
 * LAST is unchecked, so any offset <= msg_len = 2^31 is valid.
 */
static void fix_offset(struct mr_pkt *p)
{
	p->flags = MR_F_TRIM;
	p->dxh.msg_len = MR_MAX_MSG_LEN;
}

/* Any msg_len <= 2^31 at offset 0: FIRST, and TRIM where allowed. */
static void fix_msg_len(struct mr_pkt *p)
{
	if (op_flags_ok(p->opcode) & MR_F_TRIM)
		p->flags = MR_F_FIRST | MR_F_TRIM;
}

/* MR-HDR-19: rnr_timer only with reason RNR. */
static void fix_rnr(struct mr_pkt *p)
{
	p->nkh.reason = MR_NACK_RNR;
}

enum fkind {
	K_FIELD,	/* a struct mr_pkt member */
	K_CONST,	/* a constant (the version) */
	K_OPCODE,	/* the opcode itself */
	K_ICRC,		/* the ICRC trailer */
};

struct fmap {
	const char *hdr, *name;	/* as the diagram names it */
	enum fkind kind;
	unsigned int width;	/* value bits of the member */
	u64 reach;		/* value bits the codec accepts; 0: all */
	u8 ops[6];		/* opcodes to use (0-ended); none: all */
	int nvals;		/* explicit values; 0: from DISTINCT */
	u64 vals[6];
	void (*fix)(struct mr_pkt *p);
	void (*set)(struct mr_pkt *p, u64 v);
	u64 (*get)(const struct mr_pkt *p);
	const char *also;	/* MBH field that carries the same value */
};

#define F(h, n, w, id, ...)						\
	{ .hdr = h, .name = n, .kind = K_FIELD, .width = w,		\
	  .set = set_##id, .get = get_##id, __VA_ARGS__ }

/*
 * Hand table: every field the HDR diagrams draw (reserved fields are
 * recognised by name), the mr_pkt member it is, and the packets that can
 * carry distinctive values in it. Where validity limits a field (path <
 * 64, MR-MAL-6; atomic VA 8-aligned, MR-HDR-25; SACK bit 0, MR-HDR-18;
 * offset and msg_len <= 2^31, MR-HDR-4; NACK reasons, MR-HDR-19) .reach
 * or .vals says so.
 */
static const struct fmap fmap[] = {
	{ .hdr = "MBH", .name = "Ver", .kind = K_CONST, .width = 4,
	  .nvals = 1, .vals = { MR_VERSION } },
	{ .hdr = "MBH", .name = "Opcode", .kind = K_OPCODE, .width = 8 },
	F("MBH", "Flags", 16, flags, .ops = { MR_OP_SEND },
	  .reach = MR_F_ACKREQ | MR_F_SE | MR_F_RETX | MR_F_TRIM, .nvals = 3,
	  .vals = { MR_F_FIRST | MR_F_LAST,
		    MR_F_FIRST | MR_F_LAST | MR_F_ACKREQ | MR_F_RETX,
		    MR_F_FIRST | MR_F_LAST | MR_F_SE | MR_F_TRIM }),
	F("MBH", "Flags", 16, flags, .ops = { MR_OP_ACK, MR_OP_NACK },
	  .reach = MR_F_ECE, .nvals = 2, .vals = { 0, MR_F_ECE }),
	F("MBH", "Path", 8, path, .reach = MR_MAX_PATHS - 1),
	F("MBH", "Destination QPN", 24, dqpn),
	F("MBH", "PSN", 24, psn,
	  .ops = { MR_OP_SEND, MR_OP_READ_RESP, MR_OP_UD_SEND, MR_OP_PROBE }),
	F("MBH", "Source QPN", 24, sqpn,
	  .ops = { MR_OP_SEND, MR_OP_ACK, MR_OP_PROBE_REPLY }),
	F("MBH", "Transmit timestamp", 32, ts),
	F("DXH", "MSN", 32, dxh_msn),
	F("DXH", "Offset", 32, dxh_offset, .fix = fix_offset,
	  .ops = { MR_OP_SEND, MR_OP_WRITE_IMM, MR_OP_READ_RESP },
	  .nvals = 3, .vals = { 0x01234567, 0x7EDCBA98, 0x80000000 }),
	F("DXH", "Message length", 32, dxh_msg_len, .fix = fix_msg_len,
	  .ops = { MR_OP_SEND, MR_OP_WRITE, MR_OP_READ_REQ, MR_OP_READ_RESP },
	  .nvals = 3, .vals = { 0x01234567, 0x7EDCBA98, 0x80000000 }),
	F("DXH", "SSN", 32, dxh_ssn,
	  .ops = { MR_OP_SEND, MR_OP_SEND_IMM, MR_OP_SEND_INV,
		   MR_OP_WRITE_IMM }),
	F("RXH", "Virtual address", 64, rxh_va),
	F("RXH", "R_Key", 32, rxh_rkey),
	F("IMM", "Immediate data", 32, imm),
	F("IETH", "R_Key to invalidate", 32, inv_rkey),
	F("AXH", "Virtual address", 64, axh_va, .reach = ~7ULL),
	F("AXH", "R_Key", 32, axh_rkey),
	F("AXH", "Swap / Add operand", 64, axh_swap_add),
	/* MR-HDR-14: compare is sent as zero in ATOMIC_FA. */
	F("AXH", "Compare operand", 64, axh_compare,
	  .ops = { MR_OP_ATOMIC_CS }),
	F("ATKH", "Original value", 64, atomic_orig),
	F("DETH", "Q_Key", 32, deth_qkey),
	F("DETH", "Source QPN", 24, deth_sqpn, .also = "Source QPN"),
	F("AKH", "Cumulative PSN", 24, akh_cum_psn),
	F("AKH", "MSN", 32, akh_msn),
	F("AKH", "Timestamp echo", 32, akh_ts_echo),
	F("AKH", "CE count", 16, akh_ce_count),
	F("AKH", "Packet count", 16, akh_pkt_count),
	F("AKH", "Credit", 32, akh_credit),
	F("AKH", "SACK word 0", 64, akh_sack0, .reach = ~1ULL),
	F("AKH", "SACK word 1", 64, akh_sack1),
	F("AKH", "SACK word 2", 64, akh_sack2),
	F("AKH", "SACK word 3", 64, akh_sack3),
	F("NKH", "Reason", 8, nkh_reason, .reach = 7, .nvals = 6,
	  .vals = { 1, 2, 3, 4, 5, 6 }),
	F("NKH", "RNR timer", 8, nkh_rnr_timer, .fix = fix_rnr,
	  .reach = MR_RNR_TIMER_MAX),
	F("NKH", "NACK PSN", 24, nkh_nack_psn),
	/* MR-VER-9: revision 1.x with x >= 1, CORE, 65536..2^31, SEEN. */
	{ .hdr = "HLH", .name = "Rev major", .kind = K_CONST, .width = 8,
	  .nvals = 1, .vals = { MR_VERSION } },
	F("HLH", "Rev minor", 8, hlh_rev_minor, .nvals = 3,
	  .vals = { 1, 0x5A, 0xFF }),
	F("HLH", "HELLO flags", 16, hlh_hflags, .reach = MR_HLF_SEEN,
	  .nvals = 2, .vals = { 0, MR_HLF_SEEN }),
	F("HLH", "Capabilities", 32, hlh_caps, .reach = 0xFFFFFFFEULL,
	  .nvals = 3, .vals = { MR_CAP_CORE, 0x89ABCDEF, 0xFFFFFFFF }),
	F("HLH", "Max READ range", 32, hlh_max_read_range, .nvals = 3,
	  .vals = { MR_HELLO_READ_RANGE_MIN, 0x7FFEFFFF, MR_MAX_MSG_LEN }),
	{ .hdr = "ICRC", .name = "ICRC", .kind = K_ICRC, .width = 32 },
};

/* Distinctive, byte-order-revealing pattern (and its complement). */
#define DISTINCT 0x0123456789ABCDEFULL

/* ------------------------------------------------------------------ */
/* Packets and bits                                                     */
/* ------------------------------------------------------------------ */

/* A valid packet of @op with every field zero that may be zero. */
static void base_pkt(u8 op, struct mr_pkt *p)
{
	const struct mr_op_desc *d = mr_op_desc(op);
	int err;

	if (!d)
		fail_msg("opcode 0x%02x of the spec unknown to the codec", op);
	memset(p, 0, sizeof(*p));
	p->opcode = op;
	p->flags = d->flags_ok & (MR_F_FIRST | MR_F_LAST);
	if (d->attrs & MR_OPA_ATOMIC)
		p->dxh.msg_len = MR_ATOMIC_LEN;
	if (d->hdrs & MR_HDR_NKH)
		p->nkh.reason = MR_NACK_TRIMMED;
	if (d->hdrs & MR_HDR_HLH) {
		/* MR-VER-9: the smallest valid announcement. */
		p->hlh.rev_major = MR_VERSION;
		p->hlh.rev_minor = 1;
		p->hlh.caps = MR_CAP_CORE;
		p->hlh.max_read_range = MR_HELLO_READ_RANGE_MIN;
	}
	err = mr_pkt_validate(p);
	if (err)
		fail_msg("base packet of 0x%02x invalid: %s", op,
			 mr_err_name(err));
}

static int encode(const struct mr_pkt *p, u8 *buf)
{
	int len;

	memset(buf, 0xEE, BUFSZ);
	len = mr_pkt_encode(p, buf, BUFSZ);
	if (len < 0)
		fail_msg("encode op 0x%02x: %s", p->opcode, mr_err_name(len));
	return len;
}

static u64 width_mask(unsigned int w)
{
	return w >= 64 ? ~0ULL : (1ULL << w) - 1;
}

static u32 get_be32(const u8 *b)
{
	return (u32)b[0] << 24 | (u32)b[1] << 16 | (u32)b[2] << 8 | b[3];
}

/* The bits @f draws, read from the header at @buf + @base. */
static u64 extract(const u8 *buf, int base, const struct part *f)
{
	const u8 *w = buf + base + f->off;

	if (f->le) {
		/* MR-ICRC-3: least significant byte first; whole words only. */
		if (f->bit || f->width != 32)
			fail_msg("%s %s: little-endian part of a word",
				 f->hdr, f->name);
		return (u32)w[0] | (u32)w[1] << 8 | (u32)w[2] << 16 |
		       (u32)w[3] << 24;
	}
	return (get_be32(w) >> (32 - f->bit - f->width)) &
	       width_mask(f->width);
}

/* Write @v into the bits @f draws (big-endian word). */
static void insert(u8 *buf, int base, const struct part *f, u64 v)
{
	u8 *w = buf + base + f->off;
	u32 m = (u32)(width_mask(f->width) << (32 - f->bit - f->width));
	u32 x = (get_be32(w) & ~m) |
		((u32)(v << (32 - f->bit - f->width)) & m);

	w[0] = x >> 24;
	w[1] = (u8)(x >> 16);
	w[2] = (u8)(x >> 8);
	w[3] = (u8)x;
}

/* Mark the bits of @f in the byte mask @m. */
static void mark(u8 *m, int base, const struct part *f)
{
	unsigned int b;

	for (b = f->bit; b < f->bit + f->width; b++)
		m[base + f->off + b / 8] |= 0x80 >> (b % 8);
}

/* Every reserved field of every header of @op is zero (MR-VER-3). */
static void check_reserved_zero(u8 op, const u8 *buf)
{
	int i, k;

	for (i = 0; i < S.ndiag; i++) {
		const struct diagram *d = &S.diag[i];
		int base;

		if (!strcmp(d->hdr, "ICRC"))
			continue;
		base = hdr_offset(op, d->hdr);
		if (base < 0)
			continue;
		for (k = 0; k < d->nparts; k++)
			if (d->part[k].rsvd &&
			    extract(buf, base, &d->part[k]))
				fail_msg("op 0x%02x: %s %s at byte %u bit %u not zero",
					 op, d->hdr, d->part[k].raw,
					 d->part[k].off, d->part[k].bit);
	}
}

/* The parts of @d named @name, sorted by value bit; returns how many. */
static int field_parts(const struct diagram *d, const char *name,
		       const struct part **out, int max)
{
	int i, j, n = 0;

	for (i = 0; i < d->nparts; i++) {
		if (strcmp(d->part[i].name, name))
			continue;
		if (n == max)
			fail_msg("%s %s: too many parts", d->hdr, name);
		out[n++] = &d->part[i];
	}
	/* Insertion sort by lo. */
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && out[j]->lo < out[j - 1]->lo; j--) {
			const struct part *t = out[j];

			out[j] = out[j - 1];
			out[j - 1] = t;
		}
	return n;
}

/* The parts tile the value bits 0 .. @width - 1 exactly once. */
static void check_tiling(const struct part **f, int n, unsigned int width)
{
	unsigned int next = 0;
	int i;

	for (i = 0; i < n; i++) {
		if (n > 1 && !f[i]->split)
			fail_msg("%s %s: drawn twice", f[i]->hdr, f[i]->name);
		if (f[i]->lo != next)
			fail_msg("%s %s: value bits %u.. missing or drawn twice",
				 f[i]->hdr, f[i]->name, next);
		next += f[i]->width;
	}
	if (next != width)
		fail_msg("%s %s: drawn %u bits wide, the codec's field has %u",
			 f[0]->hdr, f[0]->name, next, width);
}

/* ------------------------------------------------------------------ */
/* One diagram field against the codec                                  */
/* ------------------------------------------------------------------ */

/* The opcodes @r names, or all those the spec gives header @hdr. */
static int row_ops(const struct fmap *r, const char *hdr, u8 *ops)
{
	int i, n = 0;

	if (r->ops[0]) {
		for (i = 0; i < (int)sizeof(r->ops) && r->ops[i]; i++) {
			const struct opdef *o = op_by_code(r->ops[i]);

			if (!o || !op_carries(o, hdr))
				fail_msg("spec: opcode 0x%02x has no %s",
					 r->ops[i], hdr);
			ops[n++] = r->ops[i];
		}
		return n;
	}
	for (i = 0; i < S.nop; i++)
		if (op_carries(&S.op[i], hdr))
			ops[n++] = S.op[i].code;
	if (!n)
		fail_msg("spec: no opcode carries %s", hdr);
	return n;
}

static void check_value(const char *what, u8 op, const struct part *f,
			int base, u64 got, u64 want)
{
	if (got != want)
		fail_msg("op 0x%02x %s: %s %s (byte %d, bit %u, %u bits) reads 0x%llx, want 0x%llx",
			 op, what, f->hdr, f->raw, base + (int)f->off, f->bit,
			 f->width, got, want);
}

/*
 * K_FIELD: each value, set in the member, must appear exactly at the bits
 * the diagram draws (MR-HDR-1), decode must read it back, and two values
 * may differ nowhere else in the headers.
 */
static void run_field(const struct fmap *r, const struct diagram *d,
		      const struct part **f, int nf, u8 op)
{
	static u8 buf[6][BUFSZ];
	const struct part *also[8];
	u8 allowed[BUFSZ] = { 0 };
	u64 reach = r->reach ? r->reach : width_mask(r->width);
	u64 vals[6], cov = 0;
	int len[6], nv, na = 0, base = hdr_offset(op, d->hdr), k, i;

	if (r->nvals) {
		nv = r->nvals;
		memcpy(vals, r->vals, sizeof(vals));
	} else {
		nv = 2;
		vals[0] = DISTINCT & reach;
		vals[1] = ~DISTINCT & reach;
	}
	/* The table's values must toggle every bit the codec accepts. */
	for (k = 0; k < nv; k++)
		cov |= vals[k] ^ vals[0];
	if (cov != reach)
		fail_msg("test table: values of %s %s toggle 0x%llx of 0x%llx",
			 r->hdr, r->name, cov, reach);
	if (r->also) {
		na = field_parts(diag_get("MBH"), r->also, also, 8);
		if (!na)
			fail_msg("spec: MBH draws no \"%s\"", r->also);
	}
	for (i = 0; i < nf; i++)
		mark(allowed, base, f[i]);
	for (i = 0; i < na; i++)
		mark(allowed, 0, also[i]);

	for (k = 0; k < nv; k++) {
		struct mr_pkt p, q;
		int err;

		base_pkt(op, &p);
		if (r->fix)
			r->fix(&p);
		r->set(&p, vals[k]);
		len[k] = encode(&p, buf[k]);
		for (i = 0; i < nf; i++)
			check_value("encode", op, f[i], base,
				    extract(buf[k], base, f[i]),
				    (vals[k] >> f[i]->lo) &
				    width_mask(f[i]->width));
		for (i = 0; i < na; i++)
			check_value("encode", op, also[i], 0,
				    extract(buf[k], 0, also[i]),
				    (vals[k] >> also[i]->lo) &
				    width_mask(also[i]->width));
		check_reserved_zero(op, buf[k]);
		err = mr_pkt_decode(buf[k], (u32)len[k], &q);
		if (err)
			fail_msg("op 0x%02x %s %s = 0x%llx: decode %s", op,
				 r->hdr, r->name, vals[k], mr_err_name(err));
		if (r->get(&q) != vals[k])
			fail_msg("op 0x%02x %s %s: decode 0x%llx, sent 0x%llx",
				 op, r->hdr, r->name, r->get(&q), vals[k]);
		if (!k)
			continue;
		assert_int_equal(len[k], len[0]);
		/* Headers only: the ICRC covers the change. */
		for (i = 0; i < len[k] - MR_ICRC_LEN; i++) {
			u8 x = (buf[k][i] ^ buf[0][i]) & ~allowed[i];

			if (x)
				fail_msg("op 0x%02x %s %s 0x%llx vs 0x%llx: packet byte %d changes (mask 0x%02x) outside the drawn field",
					 op, r->hdr, r->name, vals[0],
					 vals[k], i, x);
		}
	}
}

static void run_row(const struct fmap *r, const struct diagram *d,
		    const struct part **f, int nf)
{
	static u8 buf[BUFSZ];
	static const u8 pl[8] = "payload";
	u8 ops[MAX_OPS];
	int nops = row_ops(r, d->hdr, ops), i, len, base;
	struct mr_pkt p;

	for (i = 0; i < nops; i++) {
		const struct opdef *o = op_by_code(ops[i]);

		base_pkt(ops[i], &p);
		base = hdr_offset(ops[i], d->hdr);
		switch (r->kind) {
		case K_FIELD:
			run_field(r, d, f, nf, ops[i]);
			break;
		case K_CONST:
			encode(&p, buf);
			check_value("constant", ops[i], f[0], base,
				    extract(buf, base, f[0]), r->vals[0]);
			break;
		case K_OPCODE:
			encode(&p, buf);
			check_value("opcode", ops[i], f[0], base,
				    extract(buf, base, f[0]), ops[i]);
			break;
		case K_ICRC:
			/* After the payload (MR-HDR-20), little-endian. */
			if (o->payload) {
				p.payload = pl;
				p.payload_len = sizeof(pl);
				if (mr_op_desc(ops[i])->hdrs & MR_HDR_DXH)
					p.dxh.msg_len = sizeof(pl);
			}
			len = encode(&p, buf);
			base = (int)(spec_hdr_len(o) + p.payload_len);
			assert_int_equal(len, base + (int)d->size);
			check_value("ICRC", ops[i], f[0], base,
				    extract(buf, base, f[0]),
				    mr_icrc_compute(buf, (u32)base));
			assert_int_equal(mr_icrc_check(buf, (u32)len), 0);
			break;
		}
		if (r->kind != K_FIELD)
			check_reserved_zero(ops[i], buf);
	}
}

/* ------------------------------------------------------------------ */
/* Tests                                                                */
/* ------------------------------------------------------------------ */

/*
 * MR-HDR-1, MR-HDR-5..MR-HDR-19, MR-HDR-26: every field of every header
 * diagram sits where the codec puts it, is big-endian (the ICRC alone
 * little-endian, MR-ICRC-3), and the test's table covers the diagrams
 * exactly.
 */
static void test_diagram_fields(void **state)
{
	int hits[MR_ARRAY_SIZE(fmap)] = { 0 };
	int i, k, j, r, nfields = 0;

	(void)state;
	parse_spec();
	for (i = 0; i < S.ndiag; i++) {
		const struct diagram *d = &S.diag[i];

		for (k = 0; k < d->nparts; k++) {
			const struct part *f[MAX_PARTS];
			int nf, matched = 0;

			for (j = 0; j < k; j++)
				if (!strcmp(d->part[j].name, d->part[k].name))
					break;
			if (j < k || d->part[k].rsvd)
				continue;
			nf = field_parts(d, d->part[k].name, f, MAX_PARTS);
			for (r = 0; r < (int)MR_ARRAY_SIZE(fmap); r++) {
				if (strcmp(fmap[r].hdr, d->hdr) ||
				    strcmp(fmap[r].name, d->part[k].name))
					continue;
				matched++;
				hits[r]++;
				for (j = 0; j < nf; j++)
					if (f[j]->le != (fmap[r].kind == K_ICRC))
						fail_msg("%s %s: drawn %s-endian",
							 d->hdr, f[j]->raw,
							 f[j]->le ? "little" :
							 "big");
				check_tiling(f, nf, fmap[r].width);
				run_row(&fmap[r], d, f, nf);
			}
			if (!matched)
				fail_msg("spec line %d: %s field \"%s\" is not in this test's table",
					 d->line, d->hdr, d->part[k].name);
			nfields++;
		}
	}
	for (r = 0; r < (int)MR_ARRAY_SIZE(fmap); r++)
		if (!hits[r])
			fail_msg("test table: %s \"%s\" is drawn by no diagram",
				 fmap[r].hdr, fmap[r].name);
	print_message("%d fields in %d diagrams match the codec\n", nfields,
		      S.ndiag);
}

/*
 * MR-VER-3 (and MR-HDR-5, -7, -8, -11, -16, -17, -19): every reserved
 * field drawn is sent as zero, and a packet with any bit of one set is
 * dropped as "rsvd".
 */
static void test_reserved_fields(void **state)
{
	static u8 buf[BUFSZ], bad[BUFSZ];
	u8 ops[MAX_OPS];
	int i, k, j, b, n = 0;

	(void)state;
	parse_spec();
	for (i = 0; i < S.ndiag; i++) {
		const struct diagram *d = &S.diag[i];
		struct fmap all = { .hdr = d->hdr };
		int nops = row_ops(&all, d->hdr, ops);

		for (k = 0; k < d->nparts; k++) {
			const struct part *f = &d->part[k];

			if (!f->rsvd)
				continue;
			if (f->split || f->le)
				fail_msg("%s %s: reserved field drawn oddly",
					 d->hdr, f->raw);
			if (!strstr(f->raw, "(ignored)"))
				n++;
			for (j = 0; j < nops; j++) {
				int base = hdr_offset(ops[j], d->hdr), len;
				struct mr_pkt p, q;

				base_pkt(ops[j], &p);
				len = encode(&p, buf);
				check_reserved_zero(ops[j], buf);
				for (b = 0; b < 2; b++) {
					int err;

					memcpy(bad, buf, (size_t)len);
					insert(bad, base, f,
					       b ? 1 : 1ULL << (f->width - 1));
					mr_icrc_put(bad, (u32)len - MR_ICRC_LEN);
					err = mr_pkt_decode(bad, (u32)len, &q);
					/*
					 * MR-VER-9: HLH word 3 is reserved
					 * but ignored, not dropped.
					 */
					if (strstr(f->raw, "(ignored)") && !err)
						continue;
					if (err != MR_ERR_RSVD)
						fail_msg("op 0x%02x %s %s (byte %d bit %u) set: decode %s, want rsvd",
							 ops[j], d->hdr, f->raw,
							 base + (int)f->off,
							 f->bit,
							 mr_err_name(err));
				}
			}
		}
	}
	/* MR-VER-3 lists eight reserved fields outside the flags. */
	assert_int_equal(n, 8);
}

/* MR-HDR-3, MR-VER-2: the flags diagram, its table and the codec agree. */
static void test_flags(void **state)
{
	static u8 buf[BUFSZ];
	const struct part *ff[2];
	u16 all = 0, rsvd = 0;
	int i, k, n = 0, len;
	struct mr_pkt p, q;

	(void)state;
	parse_spec();
	for (i = 0; i < S.nflag; i++) {
		const struct flagdef *f = &S.flag[i];
		u16 want = (u16)(((1U << (f->hi + 1)) - 1) &
				 ~((1U << f->lo) - 1));

		if (f->mask != want)
			fail_msg("flags: %s drawn at bits %u..%u, mask 0x%04x",
				 f->name, f->hi, f->lo, f->mask);
		if (all & f->mask)
			fail_msg("flags: %s overlaps another flag", f->name);
		all |= f->mask;
		if (f->rsvd) {
			rsvd |= f->mask;
			continue;
		}
		if (f->hi != f->lo)
			fail_msg("flags: %s is wider than one bit", f->name);
		for (k = 0; k < (int)MR_ARRAY_SIZE(flag_tab); k++)
			if (!strcmp(flag_tab[k].name, f->name))
				break;
		if (k == (int)MR_ARRAY_SIZE(flag_tab))
			fail_msg("flags: %s unknown to the codec", f->name);
		if (flag_tab[k].mask != f->mask)
			fail_msg("flags: %s is 0x%04x, the codec's 0x%04x",
				 f->name, f->mask, flag_tab[k].mask);
	}
	assert_int_equal(all, 0xFFFF);
	assert_int_equal(rsvd, (u16)~MR_F_KNOWN);
	for (k = 0; k < (int)MR_ARRAY_SIZE(flag_tab); k++)
		if (!spec_flag(flag_tab[k].name))
			fail_msg("flags: the diagram lacks %s", flag_tab[k].name);

	/* The MR-HDR-3 table: "0xMMMM  NAME  meaning". */
	for (i = S.flags.title; i < S.flags.end; i++) {
		unsigned int m;
		char name[16];

		if (strncmp(line[i], "0x", 2) ||
		    sscanf(line[i], "0x%4x %15s", &m, name) != 2)
			continue;
		if (spec_flag(name) != m)
			fail_msg("spec line %d: %s 0x%04x, diagram 0x%04x",
				 i + 1, name, m, spec_flag(name));
		n++;
	}
	assert_int_equal(n, (int)MR_ARRAY_SIZE(flag_tab));

	/* MR-VER-2: reserved flag bits are ignored by a receiver. */
	if (field_parts(diag_get("MBH"), "Flags", ff, 2) != 1)
		fail_msg("spec: MBH draws no single Flags field");
	base_pkt(MR_OP_SEND, &p);
	len = encode(&p, buf);
	for (i = 0; i < 16; i++) {
		if (!(rsvd & (1U << i)))
			continue;
		insert(buf, 0, ff[0], p.flags | 1U << i);
		mr_icrc_put(buf, (u32)len - MR_ICRC_LEN);
		assert_int_equal(mr_pkt_decode(buf, (u32)len, &q), 0);
		assert_int_equal(q.flags, p.flags);
	}
}

/*
 * MR-HDR-2, MR-HDR-22, MR-HDR-23: the opcode table (headers in order,
 * payload, flags allowed, packets per message) is the codec's, and its
 * header lengths are those the spec lists.
 */
static void test_opcode_table(void **state)
{
	char par[1024], *p;
	int i, k, listed[MAX_OPS] = { 0 };

	(void)state;
	parse_spec();
	for (i = 0; i < S.nop; i++) {
		const struct opdef *o = &S.op[i];
		const struct mr_op_desc *d = mr_op_desc(o->code);
		u16 hdrs = 0;
		u16 want_attr;

		if (!d)
			fail_msg("spec opcode %s 0x%02x unknown to the codec",
				 o->name, o->code);
		if (op_by_code(o->code) != o || op_by_name(o->name) != o)
			fail_msg("spec: opcode %s listed twice", o->name);
		for (k = 0; k < o->nhdrs; k++) {
			int h;

			for (h = 0; h < (int)MR_ARRAY_SIZE(hdr_tab); h++)
				if (!strcmp(hdr_tab[h].name, o->hdr[k]))
					break;
			if (h == (int)MR_ARRAY_SIZE(hdr_tab) ||
			    !hdr_tab[h].bit || (hdrs & hdr_tab[h].bit))
				fail_msg("spec: %s header \"%s\"", o->name,
					 o->hdr[k]);
			hdrs |= hdr_tab[h].bit;
		}
		if (hdrs != d->hdrs)
			fail_msg("%s: spec headers 0x%x, codec 0x%x", o->name,
				 hdrs, d->hdrs);
		if (spec_hdr_len(o) != mr_pkt_hdr_len(o->code))
			fail_msg("%s: spec header length %u, codec %u",
				 o->name, spec_hdr_len(o),
				 mr_pkt_hdr_len(o->code));
		if (o->payload != !!(d->attrs & MR_OPA_PAYLOAD))
			fail_msg("%s: payload", o->name);
		if (o->flags != d->flags_ok)
			fail_msg("%s: spec flags 0x%04x, codec 0x%04x",
				 o->name, o->flags, d->flags_ok);
		if (!strcmp(o->pkts, "1"))
			want_attr = MR_OPA_SINGLE;
		else if (!strcmp(o->pkts, "1..n"))
			want_attr = MR_OPA_MULTI;
		else if (!strcmp(o->pkts, "n/a"))
			want_attr = MR_OPA_CTRL;
		else
			fail_msg("%s: Pkts \"%s\"", o->name, o->pkts);
		if (!(d->attrs & want_attr))
			fail_msg("%s: Pkts %s, codec attrs 0x%x", o->name,
				 o->pkts, d->attrs);
		/* MR-HDR-23: one-packet messages carry FIRST and LAST. */
		if (want_attr == MR_OPA_SINGLE &&
		    (o->flags & (MR_F_FIRST | MR_F_LAST)) !=
		    (MR_F_FIRST | MR_F_LAST))
			fail_msg("%s: single packet without F L", o->name);
	}
	for (i = 0; i < 256; i++)
		if (mr_op_desc((u8)i) && !op_by_code((u8)i))
			fail_msg("codec opcode 0x%02x not in the spec", i);

	/* "Header lengths (MBH included) per opcode, for reference: ...". */
	paragraph(S.opcodes.title, S.opcodes.end, "Header lengths (MBH included)",
		  par, sizeof(par));
	p = strstr(par, "for reference:");
	if (!p)
		fail_msg("spec: header lengths not \"for reference:\"");
	p += strlen("for reference:");
	if (!strlen(p) || p[strlen(p) - 1] != '.')
		fail_msg("spec: header lengths do not end in '.'");
	p[strlen(p) - 1] = '\0';
	for (p = strtok(p, ","); p; p = strtok(NULL, ",")) {
		char names[48], one[48], prefix[48] = "", *save, *tok;
		char *slash, *us;
		unsigned int len;
		int n = 0;

		if (sscanf(p, " %47s %u %n", names, &len, &n) != 2 || p[n])
			fail_msg("spec: header length \"%s\"", p);
		/* "ATOMIC_CS/FA" is ATOMIC_CS and ATOMIC_FA. */
		slash = strchr(names, '/');
		if (slash) {
			us = strrchr(names, '_');
			if (!us || us > slash)
				fail_msg("spec: header length \"%s\"", names);
			snprintf(prefix, sizeof(prefix), "%.*s",
				 (int)(us + 1 - names), names);
			memmove(names, us + 1, strlen(us + 1) + 1);
		}
		for (tok = strtok_r(names, "/", &save); tok;
		     tok = strtok_r(NULL, "/", &save)) {
			const struct opdef *o;

			snprintf(one, sizeof(one), "%s%s", prefix, tok);
			o = op_by_name(one);
			if (!o)
				fail_msg("spec: header length of unknown %s",
					 one);
			if (listed[o - S.op]++)
				fail_msg("spec: header length of %s twice",
					 one);
			if (len != spec_hdr_len(o))
				fail_msg("spec: %s header length %u, its headers make %u",
					 one, len, spec_hdr_len(o));
		}
	}
	for (i = 0; i < S.nop; i++)
		if (!listed[i])
			fail_msg("spec: no header length for %s", S.op[i].name);
}

/*
 * MR-HDR-1: the header sizes its prose lists are the diagrams' sizes and
 * the codec's; every diagram is listed.
 */
static void test_header_sizes(void **state)
{
	char par[4096], *p;
	int i, k, listed[MAX_DIAGS] = { 0 };

	(void)state;
	parse_spec();
	paragraph(S.hdr.title, S.hdr.end, "Header sizes in bytes are:", par,
		  sizeof(par));
	p = strstr(par, "Header sizes in bytes are:") +
	    strlen("Header sizes in bytes are:");
	p[strcspn(p, ".")] = '\0';
	for (p = strtok(p, ","); p; p = strtok(NULL, ",")) {
		char name[16], *num = strrchr(p, ' '), *end;
		unsigned long size;
		struct diagram *d;

		if (!num || sscanf(p, " %15s", name) != 1)
			fail_msg("spec: header size \"%s\"", p);
		size = strtoul(num, &end, 10);
		if (end == num + 1 || *end)
			fail_msg("spec: header size \"%s\"", p);
		d = diag_get(name);
		listed[d - S.diag]++;
		if (size != d->size)
			fail_msg("spec: MR-HDR-1 says %s %lu, its diagram %u",
				 name, size, d->size);
		for (k = 0; k < (int)MR_ARRAY_SIZE(hdr_tab); k++)
			if (!strcmp(hdr_tab[k].name, name) &&
			    hdr_tab[k].len != size)
				fail_msg("%s: spec %lu bytes, codec %u", name,
					 size, hdr_tab[k].len);
	}
	for (i = 0; i < S.ndiag; i++)
		if (listed[i] != 1)
			fail_msg("spec: MR-HDR-1 lists %s %d times",
				 S.diag[i].hdr, listed[i]);
}

/* ------------------------------------------------------------------ */
/* The example packet (MR-ICRC-7)                                        */
/* ------------------------------------------------------------------ */

/* Hand table: what the example's prose names, and where it lives. */
static const struct {
	const char *key;		/* prose: "<key> <value>" */
	const char *hdr, *field;	/* diagram field */
	u64 (*get)(const struct mr_pkt *p);
} ex_fields[] = {
	{ "path", "MBH", "Path", get_path },
	{ "destination QPN", "MBH", "Destination QPN", get_dqpn },
	{ "PSN", "MBH", "PSN", get_psn },
	{ "source QPN", "MBH", "Source QPN", get_sqpn },
	{ "timestamp", "MBH", "Transmit timestamp", get_ts },
	{ "flags", "MBH", "Flags", get_flags },
	{ "MSN", "DXH", "MSN", get_dxh_msn },
	{ "SSN", "DXH", "SSN", get_dxh_ssn },
};

/* The text after "<key> " where key is a whole word, exactly once. */
static const char *prose_value(const char *par, const char *key)
{
	const char *p = par, *found = NULL;
	size_t kl = strlen(key);

	while ((p = strstr(p, key))) {
		if ((p == par || !isalnum((u8)p[-1])) && p[kl] == ' ') {
			if (found)
				fail_msg("example: \"%s\" twice", key);
			found = p + kl + 1;
		}
		p++;
	}
	if (!found)
		fail_msg("example: prose names no \"%s\"", key);
	return found;
}

static u64 prose_number(const char *par, const char *key)
{
	const char *s = prose_value(par, key);
	char *end;
	u64 v = strtoull(s, &end, 0);

	if (end == s || (*end && *end != ',' && *end != '.' && *end != ' '))
		fail_msg("example: \"%s %.12s\" is not a number", key, s);
	return v;
}

/* "FIRST|LAST|ACKREQ" through the flags diagram. */
static u64 prose_flags(const char *par)
{
	const char *s = prose_value(par, "flags");
	char buf[64], *tok, *save;
	u64 v = 0;

	snprintf(buf, sizeof(buf), "%.*s", (int)strcspn(s, " ,."), s);
	for (tok = strtok_r(buf, "|", &save); tok;
	     tok = strtok_r(NULL, "|", &save)) {
		if (!spec_flag(tok))
			fail_msg("example: unknown flag %s", tok);
		v |= spec_flag(tok);
	}
	return v;
}

/* Parse "``aa bb ...``" after @s into @out; returns the byte count. */
static int quoted_hex(const char *s, u8 *out, int max)
{
	int n = 0, used;
	unsigned int x;

	if (strncmp(s, "``", 2))
		return -1;
	s += 2;
	while (sscanf(s, " %2x%n", &x, &used) == 1 && n < max) {
		out[n++] = (u8)x;
		s += used;
	}
	return strncmp(s, "``", 2) ? -1 : n;
}

/* The hex dump: "OOOO  hh hh ..." lines, offsets counting up. */
static int example_bytes(u8 *b, int max)
{
	int i, n = 0;

	for (i = S.hexdump.first; i <= S.hexdump.last; i++) {
		const char *s = line[i];
		unsigned int off, x;
		int used;

		if (blank(s))
			continue;
		if (sscanf(s, " %4x%n", &off, &used) != 1 ||
		    s[used] != ' ' || s[used + 1] != ' ')
			fail_msg("spec line %d: not a hex dump line", i + 1);
		if (off != (unsigned int)n)
			fail_msg("spec line %d: offset %04x, want %04x", i + 1,
				 off, n);
		/* "OOOO  hh hh ... hh": two spaces, then bytes. */
		s += used + 2;
		for (;;) {
			if (!isxdigit((u8)s[0]) || !isxdigit((u8)s[1]) ||
			    (s[2] && s[2] != ' ') || n == max ||
			    sscanf(s, "%2x", &x) != 1)
				fail_msg("spec line %d: bad byte \"%s\"",
					 i + 1, s);
			b[n++] = (u8)x;
			if (!s[2])
				break;
			s += 3;
		}
	}
	return n;
}

/*
 * MR-HDR-1, MR-HDR-6, MR-HDR-7: the worked example of MR-HDR-1 ("path P
 * with destination QPN Q is sent as the bytes ``..``") is MBH word 1 as
 * the codec and the MBH diagram write it.
 */
static void test_narrow_field_example(void **state)
{
	static u8 buf[BUFSZ];
	const char *pat = "path %u with destination QPN %x is sent as the bytes %n";
	const struct part *f[2];
	char par[4096];
	const char *s;
	unsigned int path = 0, dqpn = 0;
	int used = 0, n;
	u8 want[8], word[8] = { 0 };
	struct mr_pkt p;

	(void)state;
	parse_spec();
	paragraph(S.hdr.title, S.hdr.end, "Header sizes in bytes are:", par,
		  sizeof(par));
	for (s = par; (s = strstr(s, "path ")); s++) {
		used = 0;
		if (sscanf(s, pat, &path, &dqpn, &used) == 2 && used)
			break;
	}
	if (!s)
		fail_msg("spec: MR-HDR-1 has no \"path P with destination QPN Q is sent as the bytes ``..``\"");
	n = quoted_hex(s + used, want, sizeof(want));
	assert_int_equal(n, 4);

	base_pkt(MR_OP_SEND, &p);
	p.path = (u8)path;
	p.dqpn = dqpn;
	encode(&p, buf);
	/* The codec: MBH word 1 is bytes 4..7 (MR-HDR-6, MR-HDR-7). */
	assert_memory_equal(buf + 4, want, 4);
	/* The diagram: the same bytes hold that path and QPN. */
	memcpy(word + 4, want, 4);
	assert_int_equal(field_parts(diag_get("MBH"), "Path", f, 2), 1);
	assert_int_equal(f[0]->off, 4);
	assert_int_equal(extract(word, 0, f[0]), path);
	assert_int_equal(field_parts(diag_get("MBH"), "Destination QPN", f, 2),
			 1);
	assert_int_equal(f[0]->off, 4);
	assert_int_equal(extract(word, 0, f[0]), dqpn);
}

/*
 * MR-HDR-26: its example ("the 64-bit AXH virtual address starts at byte
 * N of an OPCODE packet") is where the opcode table and the AXH diagram
 * put that field, and the codec writes it there.
 */
static void test_unaligned_example(void **state)
{
	static u8 buf[BUFSZ];
	const char *key = "64-bit AXH virtual address starts at byte ";
	const struct part *f[2];
	char par[2048], opname[24];
	const struct opdef *o;
	unsigned int at = 0;
	struct mr_pkt p;
	const char *s;

	(void)state;
	parse_spec();
	paragraph(S.hdr.title, S.hdr.end, key, par, sizeof(par));
	s = strstr(par, key) + strlen(key);
	if (sscanf(s, "%u of an %23s", &at, opname) != 2)
		fail_msg("spec: MR-HDR-26 example \"%.40s\"", s);
	o = op_by_name(opname);
	if (!o)
		fail_msg("spec: MR-HDR-26 names unknown opcode %s", opname);
	assert_int_equal(field_parts(diag_get("AXH"), "Virtual address", f,
				     2), 2);
	if (hdr_offset(o->code, "AXH") < 0)
		fail_msg("spec: MR-HDR-26 names %s, which has no AXH", opname);
	/* f[1] carries bits 63..32: the first word of the field. */
	assert_int_equal(hdr_offset(o->code, "AXH") + (int)f[1]->off, at);
	assert_true(at % 8);
	base_pkt(o->code, &p);
	p.axh.va = DISTINCT & ~7ULL;
	encode(&p, buf);
	assert_int_equal(get_be32(buf + at), (u32)(p.axh.va >> 32));
	assert_int_equal(get_be32(buf + at + 4), (u32)p.axh.va);
}

/*
 * MR-ICRC-7, MR-ICRC-3, MR-HDR-6, MR-HDR-7, MR-HDR-8, MR-HDR-9, MR-HDR-10:
 * the example's bytes decode to exactly what its prose says, through the
 * codec and through the diagrams, its ICRC is the one stated and stored
 * least significant byte first, and the codec reproduces it byte for byte.
 */
static void test_example_packet(void **state)
{
	static u8 pkt[BUFSZ], again[BUFSZ];
	char par[2048], icrc_par[512], opname[24], payload[64];
	const struct opdef *o;
	const char *s;
	u8 stored[8];
	u64 icrc;
	struct mr_pkt p;
	int n, i, err, total, plen = -1, used = 0, nst;

	(void)state;
	parse_spec();
	paragraph(S.example.title, S.example.end, "single-packet", par,
		  sizeof(par));
	paragraph(S.example.title, S.example.end, "The ICRC is", icrc_par,
		  sizeof(icrc_par));

	/* "A single-packet SEND of the 8 bytes ``MetaRoCE``: ..." */
	s = strstr(par, "single-packet ");
	if (sscanf(s, "single-packet %23s of the %d bytes ``%n", opname,
		   &plen, &used) != 2 || !used)
		fail_msg("example: \"%.60s\"", s);
	snprintf(payload, sizeof(payload), "%.*s",
		 (int)(strstr(s + used, "``") ? strstr(s + used, "``") -
		       (s + used) : 0), s + used);
	if ((int)strlen(payload) != plen)
		fail_msg("example: payload \"%s\" is not %d bytes", payload,
			 plen);
	o = op_by_name(opname);
	if (!o)
		fail_msg("example: opcode %s not in the opcode table", opname);
	/* "The 48 bytes from the MBH to the end of the ICRC". */
	s = strstr(par, " bytes from the MBH to the end of the ICRC");
	if (!s)
		fail_msg("example: no length of the dump");
	while (s > par && isdigit((u8)s[-1]))
		s--;
	total = atoi(s);

	n = example_bytes(pkt, BUFSZ);
	assert_int_equal(n, total);

	/* Through the codec. */
	err = mr_pkt_decode(pkt, (u32)n, &p);
	if (err)
		fail_msg("example: decode %s", mr_err_name(err));
	err = mr_icrc_check(pkt, (u32)n);
	if (err)
		fail_msg("example: ICRC check %s", mr_err_name(err));
	assert_int_equal(p.opcode, o->code);
	for (i = 0; i < (int)MR_ARRAY_SIZE(ex_fields); i++) {
		u64 want = strcmp(ex_fields[i].key, "flags") ?
			   prose_number(par, ex_fields[i].key) :
			   prose_flags(par);
		const struct part *f[4];
		int nf, k, base = hdr_offset(o->code, ex_fields[i].hdr);
		u64 got = 0;

		if (ex_fields[i].get(&p) != want)
			fail_msg("example: %s decodes as 0x%llx, prose says 0x%llx",
				 ex_fields[i].key, ex_fields[i].get(&p), want);
		/* Through the diagrams alone (MR-HDR-1). */
		if (base < 0)
			fail_msg("example: %s has no %s", o->name,
				 ex_fields[i].hdr);
		nf = field_parts(diag_get(ex_fields[i].hdr),
				 ex_fields[i].field, f, 4);
		if (!nf)
			fail_msg("spec: %s draws no %s", ex_fields[i].hdr,
				 ex_fields[i].field);
		for (k = 0; k < nf; k++)
			got |= extract(pkt, base, f[k]) << f[k]->lo;
		if (got != want)
			fail_msg("example: %s at the %s diagram's place is 0x%llx, prose says 0x%llx",
				 ex_fields[i].key, ex_fields[i].hdr, got, want);
	}
	/* A whole one-packet message (MR-HDR-4, MR-HDR-23). */
	assert_int_equal(p.dxh.offset, 0);
	assert_int_equal(p.dxh.msg_len, plen);
	assert_int_equal(p.payload_len, plen);
	assert_memory_equal(p.payload, payload, (size_t)plen);
	assert_int_equal(p.hdr_len + p.payload_len + MR_ICRC_LEN, n);

	/* "The ICRC is 0x..., stored as ``.. .. .. ..``." (MR-ICRC-3) */
	s = prose_value(icrc_par, "is");
	icrc = strtoull(s, NULL, 16);
	if (strncmp(s, "0x", 2) || icrc > 0xFFFFFFFFULL)
		fail_msg("example: ICRC \"%.12s\"", s);
	assert_int_equal(mr_icrc_compute(pkt, (u32)n - MR_ICRC_LEN), icrc);
	s = strstr(icrc_par, "stored as ");
	if (!s)
		fail_msg("example: ICRC not \"stored as\"");
	nst = quoted_hex(s + strlen("stored as "), stored, sizeof(stored));
	assert_int_equal(nst, MR_ICRC_LEN);
	assert_memory_equal(stored, pkt + n - MR_ICRC_LEN, MR_ICRC_LEN);
	for (i = 0; i < MR_ICRC_LEN; i++)
		assert_int_equal(stored[i], (u8)(icrc >> (8 * i)));
	/* MR-ICRC-7: the same packet "byte for byte, including its ICRC". */
	p.payload = (const u8 *)payload;
	assert_int_equal(mr_pkt_encode(&p, again, BUFSZ), n);
	assert_memory_equal(again, pkt, (size_t)n);
}

/* A diagram the parser cannot read fails rather than passing silently. */
static void test_parser_rejects(void **state)
{
	static const char *const good[] = {
		"         0                   1                   2                   3",
		"         0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1",
		"        +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+",
		"      0 |      Rsvd     |                    NACK PSN                   |",
		"        +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+",
		"      4 |                  Original value, bits 63..32                  |",
		"        +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+",
	};
	static const struct {
		int row;
		const char *text;
	} bad[] = {
		/* '|' between two bit boundaries */
		{ 3, "      0 |      Rsvd      |                   NACK PSN                   |" },
		/* offset not 4 after 0 */
		{ 5, "      8 |                  Original value, bits 63..32                  |" },
		/* no offset */
		{ 5, "        |                  Original value, bits 63..32                  |" },
		/* row too short */
		{ 5, "      4 |                  Original value, bits 63..32                 |" },
		/* ", bits" not matching the drawn width */
		{ 5, "      4 |                  Original value, bits 63..31                  |" },
		/* missing border */
		{ 4, "" },
		/* broken border */
		{ 2, "        +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+" },
		/* broken ruler */
		{ 1, "         0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 0 0 1" },
		/* unnamed field */
		{ 3, "      0 |               |                    NACK PSN                   |" },
	};
	const char *l[MR_ARRAY_SIZE(good)];
	struct diagram d;
	unsigned int i;

	(void)state;
	memcpy(l, good, sizeof(l));
	snprintf(d.hdr, sizeof(d.hdr), "T");
	if (parse_bit_diagram(l, MR_ARRAY_SIZE(l), &d))
		fail_msg("good diagram refused: %s", perr);
	assert_int_equal(d.nparts, 3);
	assert_int_equal(d.size, 8);
	assert_true(d.part[0].rsvd && d.part[0].width == 8);
	assert_string_equal(d.part[1].name, "NACK PSN");
	assert_int_equal(d.part[1].bit, 8);
	assert_int_equal(d.part[1].width, 24);
	assert_string_equal(d.part[2].name, "Original value");
	assert_int_equal(d.part[2].lo, 32);
	for (i = 0; i < MR_ARRAY_SIZE(bad); i++) {
		memcpy(l, good, sizeof(l));
		l[bad[i].row] = bad[i].text;
		if (!parse_bit_diagram(l, MR_ARRAY_SIZE(l), &d))
			fail_msg("bad diagram %u accepted", i);
	}
}

/* A missing spec is a failure (this test also names where it looked). */
static void test_spec_found(void **state)
{
	(void)state;
	load_spec();
	print_message("spec: %s\n", spec_path);
	assert_true(nline > 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spec_found),
		cmocka_unit_test(test_parser_rejects),
		cmocka_unit_test(test_header_sizes),
		cmocka_unit_test(test_narrow_field_example),
		cmocka_unit_test(test_unaligned_example),
		cmocka_unit_test(test_flags),
		cmocka_unit_test(test_opcode_table),
		cmocka_unit_test(test_diagram_fields),
		cmocka_unit_test(test_reserved_fields),
		cmocka_unit_test(test_example_packet),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
