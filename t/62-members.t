#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Structs and unions returned in registers print by member (issue 17): the
# prototype table lists the members of small structs and unions
# (man/mcount-tables.5, version 2), flattened to scalars, and the runtime
# prints {a=5, b=-5}.  testdata/protos/members.c:
#  1. on x86_64 and aarch64 (when its gcc is installed), `objpatch list
#     --json` shows each return type's members as the source declares them
#     (offsets from the ABI), and none for a bitfield, an __int128 member or
#     a struct of 24 bytes;
#  2. on x86_64, `objpatch run` prints each value by member, the others as
#     bytes or '?' (returned in memory).
. "$(dirname "$0")/lib.sh"

SRC=$TOP/testdata/protos
OBJPATCH=$TOP/build/objpatch
command -v python3 >/dev/null || { echo "Bail out! python3 is needed"; exit 1; }
[ -x "$OBJPATCH" ] || { echo "Bail out! build/objpatch is missing (make)"; exit 1; }
T=$T_TMP

# Members as members.c declares them: (name, offset, class, size); the
# offsets and sizes are the same on both 64-bit ABIs here.
EXPECT='
ret_pair       a:0:int:4 b:4:int:4
ret_nested     p.x:0:int:2 p.y:2:int:2 tag[0]:4:uint:1 tag[1]:5:uint:1 ok:6:bool:1 c:7:char:1 q:8:pointer:8
ret_word       i:0:int:4 b[0]:0:uint:1 b[1]:1:uint:1 b[2]:2:uint:1 b[3]:3:uint:1
ret_anon       col:0:enum:4 u:4:uint:4 s:4:int:4 name:8:pointer:8
ret_bits       -
ret_wide       -
ret_big        -
main           -
'

members_of() {	# members_of LIST.json: "function member member ..." per line, "-" for none
	python3 -c '
import json, sys
for f in json.load(open(sys.argv[1])):
    ms = f["return"].get("members", [])
    print(f["function"], " ".join("%s:%d:%s:%d" % (m["name"], m["offset"], m["class"], m["size"]) for m in ms) or "-")
' "$1" | sort
}

for target in x86_64 aarch64; do
	cc=gcc
	[ $target = aarch64 ] && cc=aarch64-linux-gnu-gcc
	if ! command -v "$cc" >/dev/null; then
		skip "$target: $cc is not installed"
		continue
	fi
	compile_ok "$target members.c" "$cc" -O2 -g -pg -c "$SRC/members.c" -o "$T/members-$target.o" || continue
	run_ok "$target: recordmcount --mode=user" "$RMC" --mode=user "$T/members-$target.o" || continue
	if ! "$OBJPATCH" list --json "$T/members-$target.o" > "$T/members-$target.json"; then
		ok 1 "$target: objpatch list --json"
		continue
	fi
	is "$(members_of "$T/members-$target.json")" "$(awk 'NF { $1 = $1; print }' <<< "$EXPECT" | sort)" \
		"$target: the table lists the members of small structs and unions, none for the others"
done

# ---- 2. the values in a trace ----
if compile_ok "members link" gcc -o "$T/members" "$T/members-x86_64.o"; then
	"$OBJPATCH" run --output "$T/members.txt" -- "$T/members"
	ok $? "objpatch run: the program's own checks pass"
	got=$(python3 -c '
import re, sys
for m in re.finditer(r"\| +(ret_\w+)\(\); /\* ret=(.*) \*/$", open(sys.argv[1]).read(), re.M):
    print(m.group(1), m.group(2))' "$T/members.txt" | sort)
	want="ret_anon {col=1, u=7, s=7, name=NULL}
ret_big ?
ret_bits BYTES
ret_nested {p.x=3, p.y=-4, tag[0]=5, tag[1]=6, ok=true, c=122 'z', q=NULL}
ret_pair {a=5, b=-5}
ret_wide {09 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00}
ret_word {i=16909060, b[0]=4, b[1]=3, b[2]=2, b[3]=1}"
	# a bitfield's padding bits are the compiler's: any 8 bytes
	got=$(sed -E 's/^ret_bits \{([0-9a-f]{2} ){7}[0-9a-f]{2}\}$/ret_bits BYTES/' <<< "$got")
	is "$got" "$want" "x86_64: structs and unions in registers print by member, the others as bytes or ?"
fi

done_testing
