#!/bin/sh
# The Debian packages (debian/, dkms.conf), built and checked as a
# packager and an operator would get them. Prints one "ok"/"not ok" line
# per check and "packages: N passed, N failed".
#
#  1. dpkg-buildpackage -us -uc -b on a copy of the tree (its tracked and
#     not-ignored files, as a fresh clone would have them, in a temporary
#     directory: nothing is written into the tree);
#  2. each package's files and control fields (dpkg-deb -c / -I / -e):
#     versions from VERSION, the module source complete (every tracked
#     file under kernel/), no build products, the provider and its
#     .driver file, its libibverbs range, every program with a man page;
#  3. lintian: an error fails, warnings are listed;
#  4. DKMS builds the module from the package's source, with private
#     trees (--dkmstree, --sourcetree, --installtree: /var/lib/dkms,
#     /usr/src and /lib/modules are not touched, which is checked) and a
#     throw-away MOK key, for the installed Debian 12 headers (6.1) and
#     bookworm-backports' 6.12 headers (the tree scripts/check-kernels.sh
#     unpacked into $MR_KHEADERS): the module is built with no warning,
#     installed under updates/dkms, has the right vermagic and version,
#     and is signed with the key;
#  5. metaroce-link@.service from the package: systemd-analyze verify,
#     and its start/stop commands run twice each against a stand-in
#     rdma(8) (idempotent create, delete).
#
# A tool, a header tree or a package that is missing fails; nothing is
# skipped. About 3 minutes on two cores (MR_PKG_JOBS, default 2).
# MR_PKG_KEEP=DIR keeps the .debs and the DKMS-built modules
# (DIR/modules/<release>/updates/dkms/metaroce.ko) there, e.g. for VM
# guests, which cannot run DKMS themselves, and DIR/TREE, the tree they
# were built from (scripts/tree-id.sh), when every check passed.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
MR_KHEADERS=${MR_KHEADERS:-/var/cache/metaroce/kheaders}
RESULTS=${RESULTS:-$top/results}
JOBS=${MR_PKG_JOBS:-2}

pass=0
fail=0
ok() { echo "ok - $1"; pass=$((pass + 1)); }
notok() { echo "not ok - $1"; fail=$((fail + 1)); }
finish() {
	[ $((pass + fail)) -gt 0 ] || notok "nothing checked"
	if [ -n "${MR_PKG_KEEP:-}" ] && [ -n "${w:-}" ]; then
		rm -rf "$MR_PKG_KEEP" && mkdir -p "$MR_PKG_KEEP" &&
			cp "$w"/*.deb "$w"/*.changes "$w"/*.buildinfo "$MR_PKG_KEEP/" 2>/dev/null
		[ -d "$w/modules" ] && cp -a "$w/modules" "$MR_PKG_KEEP/"
		[ "$fail" -eq 0 ] && [ -n "${tree_id:-}" ] &&
			echo "$tree_id" >"$MR_PKG_KEEP/TREE"
		echo "# kept in $MR_PKG_KEEP: the .debs, modules/<release>/updates/dkms/metaroce.ko"
	fi
	echo "packages: $pass passed, $fail failed"
	[ "$fail" -eq 0 ]
	exit
}

mkdir -p "$RESULTS"
log=$RESULTS/packages
rm -rf "$log" && mkdir -p "$log"
w=$(mktemp -d /tmp/mr-packages.XXXXXX) || { notok "no temporary directory"; finish; }
trap 'rm -rf "$w"' EXIT
trap 'exit 1' INT TERM

missing=
for t in dpkg-buildpackage dpkg-deb dh dh_dkms dkms lintian systemd-analyze openssl modinfo git; do
	command -v "$t" >/dev/null 2>&1 || missing="$missing $t"
done
if [ -n "$missing" ]; then
	notok "tools missing:$missing (scripts/install-deps.sh)"
	finish
fi
ok "tools present"

V=$(cat "$top/VERSION")

# 1. Build from a copy: what git tracks plus new files not ignored, as in
# the tree now (a fresh clone of the next commit).
if ! git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
	notok "not a git checkout: the files to package are not known"
	finish
fi
mkdir -p "$w/src"
tree_id=$(sh "$top/scripts/tree-id.sh")
(cd "$top" && git ls-files -z --cached --others --exclude-standard |
	xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
	tar --null -T - -cf -) | tar -C "$w/src" -xf - || {
	notok "copying the tree to $w/src"
	finish
}
start=$(date +%s)
if (cd "$w/src" && DEB_BUILD_OPTIONS="parallel=$JOBS" dpkg-buildpackage -us -uc -b) \
	>"$log/dpkg-buildpackage.log" 2>&1; then
	ok "dpkg-buildpackage -us -uc -b ($(($(date +%s) - start)) s)"
else
	notok "dpkg-buildpackage -us -uc -b (log: $log/dpkg-buildpackage.log)"
	tail -5 "$log/dpkg-buildpackage.log" | sed 's/^/    /'
	finish
fi
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
dkms_deb=$w/metaroce-dkms_${V}_all.deb
prov_deb=$w/ibverbs-provider-metaroce_${V}_$arch.deb
tools_deb=$w/metaroce-tools_${V}_$arch.deb

# 2. Contents and control fields. has DEB PATH...: every path is in the
# package; field DEB NAME: one control field.
has() {
	deb=$1
	shift
	for p; do
		grep -qxF "./$p" "$deb.list" || { echo "    missing: $p"; return 1; }
	done
}
field() { dpkg-deb -f "$1" "$2"; }
pkgcheck() {
	name=$1 deb=$2
	shift 2
	if [ ! -f "$deb" ]; then
		notok "$name: $(basename "$deb") not built"
		return 1
	fi
	dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's#/$##' >"$deb.list"
	cp "$deb.list" "$log/$name.contents"
	dpkg-deb -I "$deb" >"$log/$name.info"
	rm -rf "$w/ctl-$name" && dpkg-deb -e "$deb" "$w/ctl-$name"
	v=$(field "$deb" Version)
	[ "$v" = "$V" ] || { echo "    Version $v, VERSION $V"; return 1; }
}

if pkgcheck metaroce-dkms "$dkms_deb"; then
	src=usr/src/metaroce-$V
	conf=$(dpkg-deb --fsys-tarfile "$dkms_deb" | tar -xOf - "./$src/dkms.conf")
	# shellcheck disable=SC2046
	if has "$dkms_deb" "$src/dkms.conf" $(cd "$top" && git ls-files Kbuild VERSION kernel |
		sed "s#^#$src/#") lib/systemd/system/metaroce-link@.service &&
		! grep -E '\.(o|ko|cmd|mod|mod\.c)$|Module\.symvers|modules\.order' \
			"$dkms_deb.list" | sed 's/^/    build product: /' | grep . &&
		echo "$conf" | grep -qx "PACKAGE_NAME=\"metaroce\"" &&
		echo "$conf" | grep -qx "PACKAGE_VERSION=\"$V\"" &&
		echo "$conf" | grep -qx 'BUILT_MODULE_NAME\[0\]="metaroce"' &&
		echo "$conf" | grep -qx 'AUTOINSTALL="yes"' &&
		field "$dkms_deb" Depends | grep -q 'dkms' &&
		grep -q "DKMS_NAME=metaroce" "$w/ctl-metaroce-dkms/postinst" &&
		grep -q "DKMS_VERSION=$V\$" "$w/ctl-metaroce-dkms/postinst" &&
		grep -q "dkms remove -m \$DKMS_NAME -v \$DKMS_VERSION --all" \
			"$w/ctl-metaroce-dkms/prerm"; then
		ok "metaroce-dkms $V: every tracked file of Kbuild, VERSION, kernel/ under /$src, dkms.conf ($V, AUTOINSTALL), no build products, metaroce-link@.service, Depends dkms, DKMS postinst/prerm"
	else
		notok "metaroce-dkms: contents or control (listing: $log/metaroce-dkms.contents)"
	fi
fi

if pkgcheck ibverbs-provider-metaroce "$prov_deb"; then
	dep=$(field "$prov_deb" Depends)
	driver=$(dpkg-deb --fsys-tarfile "$prov_deb" | tar -xOf - ./etc/libibverbs.d/metaroce.driver)
	if has "$prov_deb" "usr/lib/$ma/libibverbs/libmetaroce-rdmav34.so" \
		etc/libibverbs.d/metaroce.driver &&
		[ "$driver" = "driver metaroce" ] &&
		grep -qx /etc/libibverbs.d/metaroce.driver "$w/ctl-ibverbs-provider-metaroce/conffiles" &&
		echo "$dep" | grep -q 'libibverbs1 (>= ' &&
		echo "$dep" | grep -q 'libibverbs1 (<< ' &&
		[ "$(field "$prov_deb" Multi-Arch)" = same ]; then
		ok "ibverbs-provider-metaroce $V: libmetaroce-rdmav34.so in libibverbs' directory, metaroce.driver (conffile, \"driver metaroce\"), Depends: $dep"
	else
		notok "ibverbs-provider-metaroce: contents or control (Depends: $dep; driver: $driver)"
	fi
fi

if pkgcheck metaroce-tools "$tools_deb"; then
	noman=
	for b in $(grep -E '^\./usr/s?bin/.' "$tools_deb.list" | sed 's#.*/##'); do
		grep -qE "^\./usr/share/man/man[18]/$b\.[18]\.gz\$" "$tools_deb.list" ||
			noman="$noman $b"
	done
	dep=$(field "$tools_deb" Depends)
	if has "$tools_deb" usr/bin/mr-verify usr/share/man/man1/mr-verify.1.gz \
		"usr/lib/$ma/wireshark/plugins/metaroce.lua" &&
		[ -z "$noman" ] && echo "$dep" | grep -q libibverbs1; then
		ok "metaroce-tools $V: mr-verify with its man page, the Wireshark dissector; Depends: $dep"
	else
		notok "metaroce-tools: contents or control (programs without a man page:${noman:- none}; Depends: $dep)"
	fi
fi

# 3. lintian on everything built: an error (E:) fails, the rest is
# listed.
lintian --pedantic -I "$w"/metaroce_"$V"_"$arch".changes >"$log/lintian.log" 2>&1
st=$?
nerr=$(grep -c '^E: ' "$log/lintian.log")
nwarn=$(grep -c '^[WIP]: ' "$log/lintian.log")
if [ "$nerr" -gt 0 ]; then
	notok "lintian: $nerr errors (log: $log/lintian.log)"
	grep '^E: ' "$log/lintian.log" | sed 's/^/    /'
elif [ "$st" -ne 0 ]; then
	notok "lintian failed, exit status $st (log: $log/lintian.log)"
	tail -3 "$log/lintian.log" | sed 's/^/    /'
else
	ok "lintian --pedantic -I: no error, $nwarn warnings or notes"
fi
grep '^[WIP]: ' "$log/lintian.log" | sed 's/^/    /'

# 4. DKMS from the package's source, private trees only. The headers
# whose absence fails: the installed Debian 12 ones (as the Makefile
# picks them) and bookworm-backports' (scripts/check-kernels.sh).
stamp=$w/stamp
touch "$stamp"
sleep 1
root=$w/root
mkdir -p "$root" "$w/dkms" "$w/modules"
dpkg -x "$dkms_deb" "$root" 2>/dev/null
# A throw-away signing key, as DKMS makes /var/lib/dkms/mok.key.
openssl req -new -x509 -nodes -days 1 -subj "/CN=metaroce check-packages" \
	-newkey rsa:2048 -keyout "$w/mok.key" -outform DER -out "$w/mok.pub" \
	>/dev/null 2>&1
dk() {
	sign_file=$sign mok_signing_key=$w/mok.key mok_certificate=$w/mok.pub \
		dkms "$@" -m metaroce -v "$V" --dkmstree "$w/dkms" \
		--sourcetree "$root/usr/src" --installtree "$w/modules" -j "$JOBS"
}
sign=
dk add >"$log/dkms-add.log" 2>&1 ||
	notok "dkms add from the package's /usr/src/metaroce-$V (log: $log/dkms-add.log)"

dkms_kernel() {
	label=$1 tree=$2
	# The release the tree builds for (its vermagic), as the Makefile
	# reads it.
	kver=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"/\1/p' \
		"$tree/include/generated/utsrelease.h" 2>/dev/null)
	if [ ! -f "$tree/Makefile" ] || [ -z "$kver" ]; then
		notok "dkms $label: no header tree at $tree"
		return
	fi
	sign=$tree/scripts/sign-file
	mkdir -p "$w/modules/$kver"
	l=$log/dkms-$kver.log
	t0=$(date +%s)
	if ! dk build -k "$kver" --kernelsourcedir "$tree" >"$l" 2>&1 ||
		! dk install -k "$kver" --kernelsourcedir "$tree" --no-depmod >>"$l" 2>&1; then
		notok "dkms build/install $kver ($label) (log: $l)"
		tail -5 "$l" | sed 's/^/    /'
		cat "$w/dkms/metaroce/$V/build/make.log" >>"$l" 2>/dev/null
		return
	fi
	mlog=$w/dkms/metaroce/$V/$kver/$(uname -m)/log/make.log
	cp "$mlog" "$log/dkms-make-$kver.log" 2>/dev/null
	ko=$(ls "$w/modules/$kver/updates/dkms/"metaroce.ko* 2>/dev/null | head -1)
	diag=$(grep -E '(warning|error):' "$mlog" 2>/dev/null |
		grep -v '^warning: pahole version differs')
	vm=$(modinfo -F vermagic "$ko" 2>/dev/null)
	mv=$(modinfo -F version "$ko" 2>/dev/null)
	signer=$(modinfo -F signer "$ko" 2>/dev/null)
	if [ -n "$ko" ] && [ -f "$mlog" ] && [ -z "$diag" ] &&
		[ "${vm%% *}" = "$kver" ] && [ "$mv" = "$V" ] &&
		[ "$signer" = "metaroce check-packages" ]; then
		ok "dkms $kver ($label): built with no warning in $(($(date +%s) - t0)) s, installed as updates/dkms/$(basename "$ko"), version $mv, signed by the MOK key"
	else
		notok "dkms $kver ($label): module ${ko:-not installed}, vermagic '$vm', version '$mv', signer '$signer' (log: $l)"
		[ -n "$diag" ] && echo "$diag" | sort -u | head -10 | sed 's/^/    /'
	fi
}

h61=$(ls -d /usr/src/linux-headers-*[0-9]-amd64 2>/dev/null | sort -V | tail -1)
dkms_kernel "Debian 12, installed headers" "${h61:-/usr/src/linux-headers-6.1-amd64 (none installed)}"
# The tree scripts/check-kernels.sh fetched, or fetched here when this
# check runs alone (scripts/kernel-archive.sh; nothing installed).
. "$top/scripts/kernel-archive.sh"
if v612=$(resolve bookworm-backports) && [ -n "$v612" ] && fetch "$v612"; then
	dkms_kernel "bookworm-backports" "$MR_KHEADERS/$v612/usr/src/linux-headers-$v612-amd64"
else
	notok "dkms bookworm-backports: no 6.12 header tree in $MR_KHEADERS (archive: $MR_KHEADERS/apt/update.log)"
fi

changed=$(find /var/lib/dkms /lib/modules /usr/src -maxdepth 3 -cnewer "$stamp" 2>/dev/null | head -5)
if [ -z "$changed" ] && [ ! -e /usr/src/metaroce-"$V" ] && [ ! -e /var/lib/dkms/mok.key ]; then
	ok "dkms left /var/lib/dkms, /lib/modules and /usr/src alone"
else
	notok "dkms changed the host: ${changed:-/usr/src/metaroce-$V or /var/lib/dkms/mok.key}"
fi

# 5. The unit from the package.
unit=$root/lib/systemd/system/metaroce-link@.service
if [ ! -f "$unit" ]; then
	notok "metaroce-link@.service: not in metaroce-dkms"
	finish
fi
u=$w/unit
mkdir -p "$u"
cp "$unit" "$u/metaroce-link@eth0.service"
if systemd-analyze verify "$u/metaroce-link@eth0.service" >"$log/systemd-analyze.log" 2>&1 &&
	! grep -q . "$log/systemd-analyze.log"; then
	ok "metaroce-link@.service: systemd-analyze verify"
else
	notok "metaroce-link@.service: systemd-analyze verify"
	sed 's/^/    /' "$log/systemd-analyze.log"
fi
# The ExecStart/ExecStop lines for instance eth0 against a stand-in
# rdma(8) that keeps its links in a file: start twice makes one link,
# stop twice removes it, and neither fails.
mkdir -p "$u/bin"
cat >"$u/bin/rdma" <<'EOF'
#!/bin/sh
# rdma link show NAME/1 | add NAME type metaroce netdev DEV | delete NAME,
# failing like rdma(8) on a missing or an existing name.
db=$MR_FAKE_RDMA
echo "rdma $*" >>"$db.calls"
case "$1 $2" in
"link show") grep -qx "${3%/1}" "$db" ;;
"link add")
	grep -qx "$3" "$db" && exit 1
	[ "$4 $5 $6" = "type metaroce netdev" ] && [ -n "$7" ] || exit 1
	echo "$3" >>"$db" ;;
"link delete")
	grep -qx "$3" "$db" || exit 1
	grep -vx "$3" "$db" >"$db.new"
	mv "$db.new" "$db" ;;
*) exit 2 ;;
esac
EOF
chmod +x "$u/bin/rdma"
run_exec() {
	cmd=$(sed -n "s/^$1=//p" "$unit" | sed 's/%I/eth0/g; s/%i/eth0/g')
	(MR_FAKE_RDMA=$u/links && PATH=$u/bin:$PATH &&
		export MR_FAKE_RDMA PATH && eval "$cmd")
}
: >"$u/links"
if run_exec ExecStart && run_exec ExecStart && [ "$(cat "$u/links")" = mr_eth0 ] &&
	[ "$(grep -c 'link add mr_eth0 type metaroce netdev eth0' "$u/links.calls")" = 1 ] &&
	run_exec ExecStop && run_exec ExecStop && [ ! -s "$u/links" ] &&
	[ "$(grep -c 'link delete mr_eth0' "$u/links.calls")" = 1 ]; then
	ok "metaroce-link@eth0: start twice adds mr_eth0 once, stop twice deletes it once"
else
	notok "metaroce-link@eth0: start/stop commands (calls: $(tr '\n' ';' <"$u/links.calls"))"
fi

finish
