# Shared helpers for the VM harness scripts (POSIX sh, sourced).

MR_CACHE=${MR_CACHE:-/var/cache/metaroce}

log() {
	echo "[vm] $*" >&2
}

die() {
	echo "[vm] error: $*" >&2
	exit 1
}
