# SPDX-License-Identifier: GPL-2.0-only
# Helpers of the --check tests (t/33, t/35): source after lib.sh.

# check OUT FILE...: --check's output in OUT, its exit status printed.
check() {
	local out=$1
	shift
	"$RMC" --check "$@" > "$out" 2>&1
	echo $?
}

# lines KIND OUT: the findings of one kind; count KIND OUT: how many.
lines() { grep -E "^[^ ]+: $1: " "$2"; }
count() { lines "$1" "$2" | grep -c .; }
