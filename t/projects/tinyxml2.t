#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The C++ project: TinyXML-2, CMake with CXX='objpatch-c++ g++' (the
# compiler and its arguments in one variable, as CMake splits CXX), out of
# tree, shared (as Debian builds it), make -j2, its own xmltest through
# ctest, install DESTDIR=;
# libtinyxml2.so --check clean; a C++ driver against the installed
# library traced: member functions by name, an enum, an int and a string
# returned, each as the driver printed it.
# shellcheck source=t/projects/lib.sh
. "$(dirname "$0")/lib.sh"

project tinyxml2
cd "$T_TMP" || exit 1
tinyxml2_build() {
	step "cmake (CXX='objpatch-c++ g++', out of tree)" \
		env CXX="$OBJPATCH_CXX g++" cmake -S "$SRC" -B "$BLD" -DBUILD_TESTING=ON -DBUILD_SHARED_LIBS=ON \
		-DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX=/usr -DCMAKE_INSTALL_LIBDIR=lib &&
	step "make -j$JOBS" make -C "$BLD" -j"$JOBS" &&
	step "its own tests: ctest (xmltest)" ctest --test-dir "$BLD" -j"$JOBS" --output-on-failure &&
	step "make install DESTDIR=" make -C "$BLD" install DESTDIR="$DEST"
}
if tinyxml2_build; then
	checked_installed
	driver txdrv.cc '#include <cstdio>
#include <tinyxml2.h>
using namespace tinyxml2;
int main()
{
	XMLDocument doc;
	XMLError e = doc.Parse("<shelf><book pages=\"321\">Middlemarch</book></shelf>");
	XMLElement *book = doc.FirstChildElement("shelf")->FirstChildElement("book");
	std::printf("= tinyxml2::XMLDocument::Parse %s\n", XMLDocument::ErrorIDToName(e));
	std::printf("= tinyxml2::XMLElement::IntAttribute %d\n", book->IntAttribute("pages"));
	std::printf("= tinyxml2::XMLElement::GetText \"%s\"\n", book->GetText());
	return e != XML_SUCCESS;
}' g++ -I"$DEST/usr/include" -L"$DEST/usr/lib" -ltinyxml2 &&
	{
		LD_LIBRARY_PATH=$DEST/usr/lib traced txdrv "$T_TMP/txdrv"
		is "$RUN_STATUS" 0 "the traced driver parses its document with the installed libtinyxml2"
		printed_returns "$T_TMP/txdrv.trace" "$T_TMP/txdrv.out"
	}
fi
no_gmon "$T_TMP"
done_testing
