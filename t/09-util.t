#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The utility layer alone (testdata/util/util_test.c), built with util/*.c
# under ASan and UBSan: the one hash table and the map on it through many
# growths and with every key of one hash, growable strings and arrays, the
# hash functions' published values.  Under 5 seconds.
. "$(dirname "$0")/lib.sh"

D=$(mktemp -d "${TMPDIR:-/tmp}/util-test.XXXXXX")
trap 'rm -rf "$D"' EXIT
if gcc -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE -O1 -g -I"$TOP" \
	-fsanitize=address,undefined -fno-sanitize-recover=all \
	-o "$D/util_test" "$TOP/testdata/util/util_test.c" "$TOP"/util/*.c 2> "$D/cc.err"; then
	ok 0 "util_test.c and util/*.c build with -Wall -Wextra -Werror under ASan/UBSan"
	"$D/util_test" > "$D/out" 2> "$D/err"
	st=$?
	while read -r line; do
		case $line in
		"ok "*) ok 0 "${line#ok [0-9]* - }" ;;
		"not ok "*) ok 1 "${line#not ok [0-9]* - }" ;;
		esac
	done < "$D/out"
	is "$st $(wc -c < "$D/err")" "0 0" "util_test: exit 0, no sanitizer report"
	[ -s "$D/err" ] && diag "$(head -5 "$D/err")"
else
	ok 1 "util_test.c and util/*.c build ($(head -3 "$D/cc.err"))"
fi
done_testing
