#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# The Wireshark dissector userspace/wireshark/metaroce.lua, checked with
# tshark against a capture the reference codec writes (mkpcap.c).
#
#   check.sh            run the checks; last line "dissector: N passed, N failed"
#   check.sh --update   first rewrite metaroce.pcapng and golden/*.txt from
#                       the current codec and dissector (review the diff),
#                       then run the checks
#
# Checks:
#   capture      mkpcap's output is byte for byte the committed
#                metaroce.pcapng, so the goldens below describe what the
#                codec writes today;
#   golden       tshark's field output (golden/fields.txt) and packet
#                details (golden/verbose.txt) are the committed ones;
#   no-errors    no Lua error, exception or "Malformed Packet" anywhere;
#   frame N      for each frame the dissector agrees with what mkpcap's
#                codec said about it (frame comment "(codec: X)"): ok means
#                no drop reason and a good ICRC, icrc a bad one, TRIM an
#                unchecked one, any other X an expert info "dropped: X";
#                frames to another UDP port are not MetaRoCE;
#   spec-example the spec's example packet shows the spec's values;
#   sack-wrap    the SACK bitmap decodes into the PSNs across 2^24;
#   port-pref, decode-as, dst-port-only, old-port: the UDP port rules
#                (MR-ENC-1); a frame to 4793 (pre-1.1, UET) is MetaRoCE
#                only with Decode As;
#   spec-port    the default port is the same in spec.rst (MR-ENC-11),
#                wire.h (MR_UDP_PORT, what mkpcap writes) and the
#                dissector, and is none of the ports MR-VER-8 and
#                MR-ENC-11 rule out (4791 RoCEv2, 4793 UET, 4789/4790
#                VXLAN, 49152..65535 MetaRoCE's source ports);
#   robustness   no Lua error on copies with random bytes changed or cut
#                by a snapshot length;
#   spec-opcodes, spec-flags, spec-reasons, spec-sizes: the dissector's
#                transcribed tables are the spec's (opcode table, flag
#                table, NACK reasons, header sizes);
#   spec-ids     every requirement ID the dissector cites exists.
#
# tshark runs with HOME and XDG_CONFIG_HOME in a temporary directory, so
# personal preferences and plugins do not change the output.  As root,
# Debian's tshark 4.0 runs -X lua_script (its init.lua sets
# run_user_scripts_when_superuser = true).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
lua=$top/userspace/wireshark/metaroce.lua
spec=$top/Documentation/metaroce/spec.rst
pcap=$here/metaroce.pcapng
golden=$here/golden
build=$here/build
update=0
[ "${1:-}" = "--update" ] && update=1
# The default UDP port: the codec's, which mkpcap's frames are sent to.
port=$(sed -n 's/^#define MR_UDP_PORT[[:space:]]*\([0-9]*\).*/\1/p' \
	"$top/kernel/proto/wire.h")

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/home/.config"
pass=0
fail=0

ok() {
	pass=$((pass + 1))
}

not_ok() {
	echo "not ok - dissector: $*"
	fail=$((fail + 1))
}

finish() {
	echo "dissector: $pass passed, $fail failed"
	[ "$fail" -eq 0 ]
	exit $?
}

# Compare golden file $1 with $2; show the first differences.
same() {
	if cmp -s "$1" "$2"; then
		ok
	else
		not_ok "$3 differs from ${1#"$top"/}:"
		diff -u "$1" "$2" | head -40
	fi
}

# ---- the capture ----

if ! make -s -C "$here" >"$tmp/make.log" 2>&1; then
	cat "$tmp/make.log"
	not_ok "building mkpcap failed"
	finish
fi
if ! "$build/mkpcap" "$tmp/gen.pcapng" >"$tmp/mkpcap.log" 2>&1; then
	cat "$tmp/mkpcap.log"
	not_ok "mkpcap failed"
	finish
fi
[ "$update" -eq 1 ] && cp "$tmp/gen.pcapng" "$pcap"
if cmp -s "$pcap" "$tmp/gen.pcapng"; then
	ok
else
	not_ok "capture: mkpcap no longer writes the committed ${pcap#"$top"/} (codec or mkpcap changed? check.sh --update, then review the goldens' diff)"
fi

# ---- tshark ----

if ! command -v tshark >/dev/null 2>&1; then
	not_ok "tshark is not installed (scripts/install-deps.sh installs it)"
	finish
fi

tshark_env() {
	env HOME="$tmp/home" XDG_CONFIG_HOME="$tmp/home/.config" TZ=UTC \
		LC_ALL=C tshark "$@"
}

# A copy installed into the global Lua plugin folder is loaded as well
# and would register the protocol twice.
xlua="-X lua_script:$lua"
installed=$(tshark_env -G plugins 2>/dev/null |
	    awk -F'\t' '$1 ~ /metaroce/ { print $4 }' | head -1)
if [ -n "$installed" ]; then
	if cmp -s "$installed" "$lua"; then
		xlua=""
	else
		not_ok "an older metaroce dissector is installed at $installed; remove or update it"
		finish
	fi
fi

# Run tshark on the committed capture (or $capture) with the dissector;
# stderr must be empty but for the warning about running as root.
errors=0
capture=$pcap
ts() {
	# shellcheck disable=SC2086
	tshark_env -n $xlua -r "$capture" "$@" 2>"$tmp/stderr"
	grep -v '^Running as user "root"' "$tmp/stderr" >"$tmp/stderr.rest"
	if [ -s "$tmp/stderr.rest" ]; then
		cat "$tmp/stderr.rest"
		errors=$((errors + 1))
	fi
}

ts -T fields -E header=y -E occurrence=a -E aggregator=, \
	-e frame.number -e _ws.col.Info -e metaroce.opcode \
	-e metaroce.flags -e metaroce.path -e metaroce.dqpn -e metaroce.psn \
	-e metaroce.sqpn -e metaroce.ts -e metaroce.payload_len \
	-e metaroce.icrc -e metaroce.icrc.status -e metaroce.akh.sack_psn \
	-e metaroce.nkh.reason -e metaroce.nkh.rnr_timer \
	-e metaroce.nkh.nack_psn -e _ws.expert.message >"$tmp/fields.txt"
ts -O metaroce -V >"$tmp/verbose.txt"
if [ "$update" -eq 1 ]; then
	mkdir -p "$golden"
	cp "$tmp/fields.txt" "$golden/fields.txt"
	cp "$tmp/verbose.txt" "$golden/verbose.txt"
	echo "dissector: rewrote ${pcap#"$top"/} and golden/; review git diff"
fi
same "$golden/fields.txt" "$tmp/fields.txt" "tshark -T fields"
same "$golden/verbose.txt" "$tmp/verbose.txt" "tshark -V"

if grep -nE 'Lua Error|Malformed Packet|Dissector bug|\[Exception' \
	"$tmp/verbose.txt" "$tmp/fields.txt" | head -5 | grep .; then
	not_ok "no-errors: the dissector failed on some frame"
else
	ok
fi

# ---- every frame against the codec's verdict ----

ts -T fields -E separator='|' -E occurrence=a -E aggregator=';' \
	-e frame.number -e udp.dstport -e frame.comment -e metaroce.opcode \
	-e metaroce.icrc.status -e _ws.col.Info -e _ws.expert.message \
	>"$tmp/verdicts.txt"
[ -s "$tmp/verdicts.txt" ] || not_ok "frames: tshark printed nothing"
while IFS='|' read -r n dport comment opcode status info expert; do
	codec=$(printf '%s\n' "$comment" | sed -n 's/.*(codec: \([^),]*\).*/\1/p')
	why=""
	if [ "$dport" != "$port" ]; then
		[ -z "$opcode" ] || why="UDP port $dport decoded as MetaRoCE"
	elif [ -z "$opcode" ] && [ "$codec" != trunc ] &&
	     [ "$codec" != version ]; then
		why="not decoded as MetaRoCE"
	else
		case $codec in
		ok)	case $expert in *dropped:*)
				why="drop reason for a valid packet" ;; esac
			case $info in *malformed*)
				why="valid packet shown as malformed" ;; esac
			if [ "$status" != 1 ] && [ "$status" != 2 ]; then
				why="ICRC status '$status', not good"
			fi
			case $comment in *"TRIM: ICRC not checked"*)
				[ "$status" = 2 ] || why="TRIM but ICRC status '$status'" ;;
			esac ;;
		icrc)	[ "$status" = 0 ] || why="ICRC status '$status', not bad" ;;
		"")	why="no codec verdict in the frame comment" ;;
		*)	case $expert in *"dropped: $codec"*) ;;
			*) why="no expert info 'dropped: $codec'" ;; esac
			case $info in *malformed*) ;;
			*) why="$why; Info does not say malformed" ;; esac ;;
		esac
	fi
	if [ -n "$why" ]; then
		not_ok "frame $n ($comment): $why"
	else
		ok
	fi
done <"$tmp/verdicts.txt"

# ---- a few values spelled out ----

# Fields $2... of frame $1, separated by spaces.
val() {
	frame=$1
	shift
	fields=""
	for f in "$@"; do fields="$fields -e $f"; done
	# shellcheck disable=SC2086
	ts -Y "frame.number == $frame" -T fields -E separator=' ' \
		-E occurrence=a -E aggregator=, $fields
}

# The spec's "Example packet (informative)".
got=$(val 1 metaroce.version metaroce.opcode metaroce.flags \
	metaroce.path metaroce.dqpn metaroce.psn metaroce.sqpn metaroce.ts \
	metaroce.dxh.msn metaroce.dxh.ssn metaroce.dxh.msg_len \
	metaroce.payload metaroce.icrc metaroce.icrc.status)
want="1 0x01 0x000d 3 0x00000123 0x00abcdef 0x00000456 74565 7 2 8 4d657461526f4345 0xd5ced7ef 1"
if [ "$got" = "$want" ]; then
	ok
else
	not_ok "spec-example: got '$got', want '$want'"
fi

# cum_psn 0xfffff0 with SACK bits 1-3 15-17 63-65 128 200 255.
n=$(grep -n 'SACK across the PSN wrap' "$tmp/verdicts.txt" | cut -d'|' -f1 |
    cut -d: -f2)
got=$(val "${n:-0}" metaroce.akh.sack_psn)
want="0xfffff1,0xfffff2,0xfffff3,0xffffff,0x000000,0x000001,0x00002f,0x000030,0x000031,0x000070,0x0000b8,0x0000ef"
if [ -n "$n" ] && [ "$got" = "$want" ]; then
	ok
else
	not_ok "sack-wrap: frame '${n:-none}' SACKed PSNs '$got', want '$want'"
fi

# ---- UDP ports: the preference, Decode As, destination port only ----

port_frames() {
	ts "$@" -Y metaroce -T fields -e udp.dstport | sort -u | tr '\n' ' '
}
got=$(port_frames -o metaroce.udp_port:5000)
if [ "$got" = "5000 " ]; then ok; else
	not_ok "port-pref: with udp_port 5000 decoded ports '$got', want '5000 '"
fi
got=$(port_frames -o metaroce.udp_port:0 -d udp.port==5001,metaroce)
if [ "$got" = "5001 " ]; then ok; else
	not_ok "decode-as: with udp_port 0 and Decode As 5001 decoded ports '$got', want '5001 '"
fi
got=$(ts -Y "udp.srcport == $port" -T fields -e metaroce.opcode -e data.len)
if [ "$got" = "	24" ]; then ok; else
	not_ok "dst-port-only: a datagram from port $port gave '$got', want data only"
fi
got=$(ts -Y 'udp.dstport == 4793' -T fields -e udp.dstport -e metaroce.opcode)
got2=$(port_frames -d udp.port==4793,metaroce)
if [ "$got" = "4793	" ] && [ "$got2" = "4793 $port " ]; then ok; else
	not_ok "old-port: to 4793 by default '$got' (want '4793' and no opcode), with Decode As 4793 decoded ports '$got2' (want '4793 $port ')"
fi

# The default port, MR-ENC-11: spec, codec and dissector agree, and it is
# not a port MR-VER-8 or MR-ENC-11 rule out.
spec_port=$(awk '/^\.\. _MR-ENC-11:/ { on = 1; next }
	on && /^\.\. _/ { exit } on { s = s " " $0 } END { print s }' "$spec" |
	sed -n 's/.*default MetaRoCE UDP destination port is \([0-9]*\).*/\1/p' |
	head -1)
lport=$(sed -n 's/^local DEFAULT_PORT = \([0-9]*\).*/\1/p' "$lua")
case $port in
""|4789|4790|4791|4793) pbad="excluded" ;;
*) if [ "$port" -ge 49152 ]; then pbad="in 49152..65535"; else pbad=""; fi ;;
esac
if [ -n "$port" ] && [ "$spec_port" = "$port" ] && [ "$lport" = "$port" ] &&
   [ -z "$pbad" ]; then ok; else
	not_ok "spec-port: spec.rst '$spec_port', wire.h '$port'${pbad:+ ($pbad)}, metaroce.lua '$lport'"
fi

# Damaged copies: random bytes changed (editcap -E, fixed seeds) and
# frames cut by a snapshot length, inside and after the MBH.
bad=""
for v in seed:1 seed:2 seed:3 seed:4 seed:5 snap:50 snap:62 snap:70 snap:90; do
	case $v in
	seed:*) editcap --seed "${v#seed:}" -E 0.05 "$pcap" "$tmp/damaged.pcapng" ;;
	snap:*) editcap -s "${v#snap:}" "$pcap" "$tmp/damaged.pcapng" ;;
	esac
	capture=$tmp/damaged.pcapng
	ts -V >"$tmp/damaged.txt"
	capture=$pcap
	if grep -qE 'Lua Error|Malformed Packet: MetaRoCE|Dissector bug' \
		"$tmp/damaged.txt"; then
		grep -E 'Lua Error|Malformed Packet: MetaRoCE|Dissector bug' \
			"$tmp/damaged.txt" | head -3
		bad="$bad $v"
	fi
done
if [ -z "$bad" ]; then ok; else
	not_ok "robustness: the dissector failed on damaged captures:$bad"
fi

if [ "$errors" -ne 0 ]; then
	not_ok "tshark wrote $errors error report(s) on stderr (above)"
fi

# ---- the dissector's tables against the spec's ----

# Rows of the first simple table after the line of spec.rst matching $1:
# columns $2 (numbers, comma-separated) joined by "|", "(none)" as empty,
# continuation lines skipped.
spec_table() {
	awk -v anchor="$1" -v want="$2" '
	$0 ~ anchor { found = 1 }
	found && /^=+( +=+)+ *$/ {
		border++
		if (border == 1) {
			n = 0
			for (i = 1; i <= length($0); i++)
				if (substr($0, i, 1) == "=" &&
				    (i == 1 || substr($0, i - 1, 1) == " "))
					start[++n] = i
			start[n + 1] = length($0) + 1000
		}
		if (border == 3) exit
		next
	}
	found && border == 2 && /^[^ ]/ {
		k = split(want, cols, ",")
		out = ""
		for (j = 1; j <= k; j++) {
			c = cols[j]
			v = substr($0, start[c], start[c + 1] - start[c])
			gsub(/^ +| +$/, "", v)
			if (v == "(none)") v = ""
			out = out (j > 1 ? "|" : "") v
		}
		print out
	}' "$spec"
}

# same_table NAME: $tmp/NAME.spec and $tmp/NAME.lua hold the same rows.
same_table() {
	sort "$tmp/$1.spec" >"$tmp/$1.spec.s"
	sort "$tmp/$1.lua" >"$tmp/$1.lua.s"
	if [ ! -s "$tmp/$1.spec.s" ] || [ ! -s "$tmp/$1.lua.s" ]; then
		not_ok "spec-$1: could not read the table from spec.rst or metaroce.lua"
	elif cmp -s "$tmp/$1.spec.s" "$tmp/$1.lua.s"; then
		ok
	else
		not_ok "spec-$1: metaroce.lua (+) differs from spec.rst (-):"
		diff -u "$tmp/$1.spec.s" "$tmp/$1.lua.s" | sed 1,2d
	fi
}

# Opcodes: code, name, headers, payload, flags allowed, packets.
spec_table '^\.\. _MR-HDR-2:' 1,2,3,4,5,6 >"$tmp/opcodes.spec"
sed -n 's/^[[:space:]]*\[\(0x[0-9A-Fa-f]*\)\] = { "\([A-Z_]*\)", *"\([A-Z ]*\)", *\(true\|false\), *"\([A-Za-z ]*\)", *"\([^"]*\)" },$/\1|\2|\3|\4|\5|\6/p' \
	"$lua" | sed 's/|true|/|yes|/; s/|false|/|no|/' >"$tmp/opcodes.lua"
same_table opcodes
# Flags: mask, name.
spec_table '^\.\. _MR-HDR-3:' 1,2 >"$tmp/flags.spec"
sed -n 's/^[[:space:]]*{ mask = \(0x[0-9A-Fa-f]*\), name = "\([A-Z]*\)".*/\1|\2/p' \
	"$lua" >"$tmp/flags.lua"
same_table flags
# NACK reasons: value, name, fatal.
spec_table '^\.\. _MR-REL-5:' 1,2,4 >"$tmp/reasons.spec"
sed -n 's/^[[:space:]]*\[\([0-9]*\)\] = { "\([A-Z_]*\)", \(true\|false\) },$/\1|\2|\3/p' \
	"$lua" | sed 's/|true$/|yes/; s/|false$/|no/' >"$tmp/reasons.lua"
same_table reasons
# Header sizes, from the prose of the first HDR requirement.
awk '/^\.\. _MR-HDR-1:/ { on = 1; next }
     on && /^\*\*/ { p = 1 } p && /^$/ { exit } p { s = s " " $0 }
     END { print s }' "$spec" |
	sed -n 's/.*Header sizes in bytes are: *\(.*\), ICRC trailer.*/\1/p' |
	tr ',' '\n' | sed -n 's/^ *\([A-Z]*\) \([0-9]*\) *$/\1|\2/p' \
	>"$tmp/sizes.spec"
sed -n 's/^[[:space:]]*\([A-Z]*\) = { len = \([0-9]*\),.*/\1|\2/p' "$lua" \
	>"$tmp/sizes.lua"
same_table sizes

# ---- requirement IDs cited by the dissector ----

grep -oE '\bMR-[A-Z]+-[0-9]+\b' "$lua" | sort -u >"$tmp/ids"
missing=""
while read -r id; do
	grep -q "^\.\. _$id:" "$spec" || missing="$missing $id"
done <"$tmp/ids"
[ -s "$tmp/ids" ] || missing=" (none found)"
if [ -z "$missing" ]; then ok; else
	not_ok "spec-ids: cited by metaroce.lua but not in spec.rst:$missing"
fi

finish
