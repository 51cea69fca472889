# shellcheck shell=sh
# The one host-side check of BENCH_MR_ATTRS, sourced by bench.sh and
# fabric.sh before any VM boots. The guests write each attribute with
# mr_dev_attrs (tests/vm/guest/lib.sh); the words reach them in single
# quotes (tests/vm/run.sh, MR_GUEST_ENV).

# bench_attrs_check WORDS: every word NAME=VALUE, NAME of lower-case
# letters, digits and _ from a letter on, VALUE not empty and of letters,
# digits and . _ , -; on a bad word prints why and returns 1.
bench_attrs_check() {
	for ba_w in $1; do
		case "$ba_w" in
		[a-z]*=?*) ;;
		*) echo "BENCH_MR_ATTRS: '$ba_w' is not name=value"; return 1 ;;
		esac
		case "${ba_w%%=*}" in *[!a-z0-9_]*)
			echo "BENCH_MR_ATTRS: bad name in '$ba_w'"; return 1 ;;
		esac
		case "${ba_w#*=}" in *[!A-Za-z0-9._,-]*)
			echo "BENCH_MR_ATTRS: bad value in '$ba_w'"; return 1 ;;
		esac
	done
	return 0
}
