#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The CMake project: cJSON (its own -std=c89 -pedantic -Werror flags), the
# wrapper as CMAKE_C_COMPILER_LAUNCHER (as ccache plugs in), out of tree,
# make -j2, its own tests through ctest (cJSON_test and the Unity suites),
# install DESTDIR=; libcjson.so --check clean; a driver against the
# installed library traced: each value it printed is the traced return.
# shellcheck source=t/projects/lib.sh
. "$(dirname "$0")/lib.sh"

project cjson
cd "$T_TMP" || exit 1
cjson_build() {
	step "cmake (CMAKE_C_COMPILER_LAUNCHER=objpatch-cc, out of tree)" \
		cmake -S "$SRC" -B "$BLD" -DCMAKE_C_COMPILER=gcc -DCMAKE_C_COMPILER_LAUNCHER="$OBJPATCH_CC" \
		-DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX=/usr -DCMAKE_INSTALL_LIBDIR=lib &&
	step "make -j$JOBS" make -C "$BLD" -j"$JOBS" &&
	step "its own tests: ctest" ctest --test-dir "$BLD" -j"$JOBS" --output-on-failure &&
	step "make install DESTDIR=" make -C "$BLD" install DESTDIR="$DEST"
}
if cjson_build; then
	checked_installed
	driver cjdrv.c '#include <stdio.h>
#include <cjson/cJSON.h>
int main(void)
{
	cJSON *j = cJSON_Parse("{\"list\": [1, 2, 3], \"half\": 2.5}");
	cJSON *list = cJSON_GetObjectItemCaseSensitive(j, "list");
	printf("= cJSON_Version \"%s\"\n", cJSON_Version());
	printf("= cJSON_GetArraySize %d\n", cJSON_GetArraySize(list));
	printf("= cJSON_IsArray %d\n", cJSON_IsArray(list));
	printf("= cJSON_PrintUnformatted \"%s\"\n", cJSON_PrintUnformatted(list));
	printf("= cJSON_GetNumberValue %g\n", cJSON_GetNumberValue(cJSON_GetObjectItem(j, "half")));
	cJSON_Delete(j);
	return 0;
}' gcc -I"$DEST/usr/include" -L"$DEST/usr/lib" -lcjson &&
	{
		LD_LIBRARY_PATH=$DEST/usr/lib traced cjdrv "$T_TMP/cjdrv"
		is "$RUN_STATUS" 0 "the traced driver runs on the installed libcjson"
		printed_returns "$T_TMP/cjdrv.trace" "$T_TMP/cjdrv.out"
	}
fi
no_gmon "$T_TMP"
done_testing
