# SPDX-License-Identifier: GPL-2.0-only
# One Makefile for the whole tree; binaries go to build/.

CC ?= cc
OBJCOPY ?= objcopy
BUILD := build
VERSION := 0.1

# Where `make install` puts things (README, "Install"); DESTDIR is prepended
# to each, the others are the paths the installed files see.  Pass the same
# BINDIR and LIBDIR to `make` and `make install`: objpatch has LIBDIR compiled
# in (relative to BINDIR too, so a moved tree still works), and a change
# relinks it.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR ?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
# The commands `make install` copies from $(BUILD) to BINDIR.
TOOLS := recordmcount objpatch objpatch-cc
# The runtime's ABI: SOVERSION changes when objpatch.h's interface changes
# incompatibly; the file is libobjpatch.so.$(LIBVERSION), with the links
# libobjpatch.so.$(SOVERSION) (the SONAME, what programs load) and
# libobjpatch.so (what -lobjpatch and LD_PRELOAD=build/libobjpatch.so find).
SOVERSION := 0
LIBVERSION := $(SOVERSION).1.0
SONAME := libobjpatch.so.$(SOVERSION)

WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
CFLAGS ?= -O2 -g
ALL_CFLAGS := -std=gnu11 $(WARN) -D_GNU_SOURCE -DVERSION='"$(VERSION)"' $(CFLAGS)
# Kbuild starts the tool once per object: loading libdw, libelf and their
# compression libraries dynamically cost about as much as the work on a small
# object, so the tools are linked statically unless STATIC=0 (or sanitized).
STATIC ?= 1
ifeq ($(SANITIZE),1)
ALL_CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS += -fsanitize=address,undefined
STATIC := 0
endif
ifeq ($(STATIC),1)
LDFLAGS += -static
LDLIBS := -ldw -lelf -lz -llzma -lbz2 -lpthread
ELF_LIBS := -lelf -lz
else
LDLIBS := -ldw -lelf
ELF_LIBS := -lelf
endif

# `make` alone builds everything (the layers' archive rules below come first).
.DEFAULT_GOAL := all

# The layers (README, "Layout"), bottom up; each folder depends only on the
# ones before it.  Every architecture's runtime port (arch/*/rt_*) is built
# into the runtime only.
UTIL_SRC := $(wildcard util/*.c)
ARCH_SRC := arch/arch.c arch/abi_args.c arch/remote.c $(foreach f,$(wildcard arch/*/*.c),$(if $(filter rt_%,$(notdir $(f))),,$(f)))
# Relocation names, for the tools' messages only.
ARCH_TOOL_SRC := arch/reloc_names.c
ELF_SRC := $(wildcard elf/*.c)
TABLES_SRC := $(wildcard tables/*.c)
TRACE_SRC := $(wildcard trace/*.c)
DWARF_SRC := $(wildcard dwarf/*.c)
# Runtimes for other machines' programs, which `objpatch run` starts under
# qemu-user with $(BUILD)/QEMU/libobjpatch.so (objpatch/cli/run.c): built by
# `make all` for each machine of arch/machines.h that has a runtime port and
# whose cross compiler is installed; each links that machine's libelf
# (scripts/deps.sh).  One word per machine: QEMU:PORT:TRIPLE.
CROSS_ROWS_AWK := /^MACHINE[(]/ { sub(/^MACHINE[(]/, ""); \
	for (i = 1; i <= NF; i++) gsub(/^[[:space:]]+|[[:space:]]+$$/, "", $$i); \
	if ($$6 != "-") printf "%s:%s:%s ", $$6, $$5, substr($$2, 1, length($$2) - 1) }
CROSS_MACHINES := $(shell awk -F, '$(CROSS_ROWS_AWK)' arch/machines.h)
cross_field = $(word $(2),$(subst :, ,$(1)))
# This compiler's machine: the row whose triple starts with the same CPU.
HOST_CPU := $(shell $(CC) -dumpmachine | cut -d- -f1 | sed 's/^i[3-6]86$$/i686/')
HOST_MACHINE := $(firstword $(foreach m,$(CROSS_MACHINES),$(if $(filter $(HOST_CPU)-%,$(call cross_field,$(m),3)),$(m))))
HOST_QEMU := $(call cross_field,$(HOST_MACHINE),1)
# The runtime's port: the compiler's machine's.  It is every runtime file of
# that machine, arch/<family>/rt_$(RT_ARCH).[cS] and rt_$(RT_ARCH)_*.c, and
# the one its family's machines share, arch/<family>/rt_<family>.c (x86's
# int3 patch protocol).
RT_ARCH ?= $(call cross_field,$(HOST_MACHINE),2)
RT_PORT_S := $(wildcard arch/*/rt_$(RT_ARCH).S)
RT_FAMILY := $(patsubst arch/%/,%,$(dir $(RT_PORT_S)))
RT_PORT := $(sort $(wildcard arch/*/rt_$(RT_ARCH).c arch/*/rt_$(RT_ARCH)_*.c $(foreach f,$(RT_FAMILY),arch/$(f)/rt_$(f).c)))
# The patch header: the port's own, or the one its family's ports share
# (powerpc's, which the compiler's macros adapt to each).
RT_PATCH_H := $(firstword $(foreach f,$(RT_FAMILY),$(wildcard arch/$(f)/patch_$(RT_ARCH).h arch/$(f)/patch_$(f).h)))

# The tools link each layer below them as an archive, so a tool gets only
# the members it calls (t/05-layers.t checks what each binary holds).
layer_a = $(BUILD)/obj/layer-$(1).a
define layer_archive
$(call layer_a,$(1)): $(patsubst %.c,$(BUILD)/obj/%.o,$(2))
	rm -f $$@
	$$(AR) rcs $$@ $$^
endef
$(eval $(call layer_archive,util,$(UTIL_SRC)))
$(eval $(call layer_archive,arch,$(ARCH_SRC) $(ARCH_TOOL_SRC)))
$(eval $(call layer_archive,elf,$(ELF_SRC)))
$(eval $(call layer_archive,tables,$(TABLES_SRC)))
$(eval $(call layer_archive,trace,$(TRACE_SRC)))
$(eval $(call layer_archive,dwarf,$(DWARF_SRC)))
# The recorder without its command, for objpatch-cc (which records in process).
$(eval $(call layer_archive,recordmcount,$(filter-out recordmcount/main.c,$(wildcard recordmcount/*.c))))

RMC_SRC := $(wildcard recordmcount/*.c) $(DWARF_SRC) $(TABLES_SRC) $(ELF_SRC) $(ARCH_SRC) $(ARCH_TOOL_SRC) $(UTIL_SRC)
RMC_OBJ := $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard recordmcount/*.c)) \
	$(foreach l,dwarf tables elf arch util,$(call layer_a,$(l)))

# The compiler wrapper (objpatch/cc): objpatch-c++ is a link to it.
CC_WRAP_OBJ := $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard objpatch/cc/*.c)) \
	$(foreach l,recordmcount dwarf tables elf arch util,$(call layer_a,$(l)))

# The tracing runtime: PIC objects for libobjpatch.so (LD_PRELOAD) and
# libobjpatch.a, only the API and the interposed symbols exported.
RT_SRC := $(wildcard objpatch/lib/*.c) $(TRACE_SRC) $(TABLES_SRC) $(ELF_SRC) $(ARCH_SRC) $(UTIL_SRC) $(RT_PORT)
RT_OBJ := $(patsubst %.c,$(BUILD)/pic/%.o,$(RT_SRC)) $(patsubst %.S,$(BUILD)/pic/%-S.o,$(RT_PORT_S))
# The objpatch command reads recordings and tables of any machine with the
# trace layer's writer, and links no part of the runtime (t/05-layers.t).
OBJPATCH_OBJ := $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard objpatch/cli/*.c objpatch/attach/*.c objpatch/engine/*.c)) \
	$(foreach l,trace tables elf arch util,$(call layer_a,$(l)))
# The runtime is preloaded into programs that have no sanitizer runtime, so
# SANITIZE=1 leaves it uninstrumented (its shared code is checked under
# ASan/UBSan by t/70 and t/80).
RT_ALL_CFLAGS = $(filter-out -fsanitize=% -fno-sanitize-recover=%,$(ALL_CFLAGS))
# Unwind tables: a C++ exception unwinds through the runtime's hooks
# (rt_unwind.c), and sparc64's gcc makes none by default.
RUNTIME_CFLAGS := -fPIC -fvisibility=hidden -fno-omit-frame-pointer -fasynchronous-unwind-tables -flto -ffat-lto-objects \
	$(if $(RT_FAMILY),-DRT_PORT_PATCH_H='"$(RT_PATCH_H)"')
RT_LIBS := -lelf -ldl -pthread

# A machine whose Debian toolchain cannot build it (sh4) gets one of its
# own from scripts/toolchain-QEMU.sh, outside the repo: its bin/ goes first
# in PATH for that machine's build only, and without it (not set up yet)
# the machine's runtime is not built.  "-": the host's toolchain serves.
OBJPATCH_TOOLCHAINS ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/objpatch-toolchains
cross_path = $(if $(wildcard scripts/toolchain-$(1).sh),$(if $(wildcard $(OBJPATCH_TOOLCHAINS)/$(1)/ready),$(OBJPATCH_TOOLCHAINS)/$(1)/bin),-)
CROSS_RUNTIMES := $(foreach m,$(CROSS_MACHINES),$(if $(and $(filter-out $(HOST_QEMU),$(call cross_field,$(m),1)), \
	$(wildcard arch/*/rt_$(call cross_field,$(m),2).c), $(call cross_path,$(call cross_field,$(m),1)), \
	$(shell $(if $(filter-out -,$(call cross_path,$(call cross_field,$(m),1))),PATH='$(call cross_path,$(call cross_field,$(m),1))':"$$PATH") command -v $(call cross_field,$(m),3)-gcc 2>/dev/null)), \
	runtime-$(call cross_field,$(m),1)))

.PHONY: all check demo install clean bench bench-runtime bench-args bench-e2e bench-layout bench-cross bench-instrument bench-wrapper bench-xray $(CROSS_RUNTIMES)
all: $(BUILD)/recordmcount $(BUILD)/objpatch $(BUILD)/objpatch-cc $(BUILD)/objpatch-c++ $(BUILD)/libobjpatch.so $(BUILD)/libobjpatch.a $(CROSS_RUNTIMES)

# Sanitizer runtimes for the targets are not installed: a sanitized host
# build still gets plain cross runtimes.
define cross_runtime
runtime-$(call cross_field,$(1),1):
	$(if $(filter-out -,$(call cross_path,$(call cross_field,$(1),1))),PATH='$(call cross_path,$(call cross_field,$(1),1))':"$$$$PATH") $$(MAKE) --no-print-directory RT_ARCH=$(call cross_field,$(1),2) CC=$(call cross_field,$(1),3)-gcc \
		AR=$(call cross_field,$(1),3)-ar OBJCOPY=$(call cross_field,$(1),3)-objcopy BUILD=$$(BUILD)/$(call cross_field,$(1),1) SANITIZE= \
		$$(BUILD)/$(call cross_field,$(1),1)/libobjpatch.so $$(BUILD)/$(call cross_field,$(1),1)/libobjpatch.a
endef
$(foreach m,$(CROSS_MACHINES),$(eval $(call cross_runtime,$(m))))

# Include roots: the tree's top ("elf/elfobj.h"); header dependencies from
# the compiler's own lists (-MMD).  The kernel trees of make kbuild-test and
# make kernel-retval-test (build/kbuild, build/kernel-6.12) hold Kbuild's own
# .d files, and a directory named test.d: not searched.
DEPFLAGS = -I. -MMD -MP
-include $(shell find $(BUILD) \( -path '$(BUILD)/kbuild' -o -path '$(BUILD)/kernel-*' \) -prune \
	-o -name '*.d' -type f -print 2>/dev/null)

# <elf.h>'s R_* constants of the machines arch/ knows, as {EM, type, "name"} rows.
# One word per ELF machine of arch/machines.h, PREFIX:EM, whose R_PREFIX_
# names its relocations: EM_X's are R_X_*, but <elf.h> names S/390's R_390_*
# and SPARC V9's (SPARC's, shared with the 32-bit machines) R_SPARC_*.
RELOC_ROWS_AWK := /^MACHINE[(]/ { gsub(/[[:space:]]/, "", $$7); p = substr($$7, 4); \
	if (p == "S390") p = "390"; if (p == "SPARCV9") p = "SPARC"; \
	if (!(p in seen)) { seen[p]; printf "%s:%s ", p, $$7 } }
RELOC_PREFIXES := $(shell awk -F, '$(RELOC_ROWS_AWK)' arch/machines.h)
$(BUILD)/gen/arch/reloc_names.inc: Makefile arch/machines.h
	@mkdir -p $(dir $@)
	echo '#include <elf.h>' | $(CC) -E -dM - | awk -v pre='$(RELOC_PREFIXES)' \
	  'BEGIN { n = split(pre, p, " "); for (i = 1; i <= n; i++) { split(p[i], kv, ":"); em["R_" kv[1] "_"] = kv[2] } } \
	   $$1 == "#define" && $$2 ~ /^R_/ && $$2 !~ /_NUM$$/ { def[$$2] = $$3 } \
	   END { for (name in def) { v = def[name]; while (v in def) v = def[v]; if (v !~ /^[0-9]+$$/) continue; \
	         for (k in em) if (index(name, k) == 1) print "{ " em[k] ", " v ", \"" name "\" }," } }' | sort -u > $@.tmp
	mv $@.tmp $@
$(BUILD)/obj/arch/reloc_names.o $(BUILD)/fuzz/obj/arch/reloc_names.o: $(BUILD)/gen/arch/reloc_names.inc
$(BUILD)/obj/arch/reloc_names.o: ALL_CFLAGS += -I$(BUILD)/gen
$(BUILD)/fuzz/obj/arch/reloc_names.o: FUZZ_CFLAGS += -I$(BUILD)/gen

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -c $< -o $@

$(BUILD)/pic/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(RT_ALL_CFLAGS) $(RUNTIME_CFLAGS) $(DEPFLAGS) -c $< -o $@

$(BUILD)/obj/%-S.o: %.S
	@mkdir -p $(dir $@)
	$(CC) $(DEPFLAGS) -c $< -o $@

$(BUILD)/pic/%-S.o: %.S
	@mkdir -p $(dir $@)
	$(CC) $(RUNTIME_CFLAGS) $(DEPFLAGS) -c $< -o $@

$(BUILD)/libobjpatch.so.$(LIBVERSION): $(RT_OBJ)
	$(CC) -shared $(RT_ALL_CFLAGS) $(RUNTIME_CFLAGS) $(filter-out -static -fsanitize=%,$(LDFLAGS)) -Wl,-z,defs \
		-Wl,-soname,$(SONAME) -o $@ $^ $(RT_LIBS)
$(BUILD)/$(SONAME): $(BUILD)/libobjpatch.so.$(LIBVERSION)
	ln -sf $(notdir $<) $@
$(BUILD)/libobjpatch.so: $(BUILD)/$(SONAME)
	ln -sf $(notdir $<) $@

# The archive keeps only the machine code of the fat LTO objects: with their
# GIMPLE sections, gcc's linker plugin would run LTO on the user's link and
# lto-wrapper would warn about it in every program that links the archive.
$(BUILD)/libobjpatch.a: $(RT_OBJ)
	rm -f $@ $@.tmp
	$(AR) rcs $@.tmp $^
	$(OBJCOPY) --remove-section='.gnu.lto_*' --remove-section='.gnu.debuglto_*' $@.tmp
	mv $@.tmp $@

$(BUILD)/recordmcount: $(RMC_OBJ)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# Where an installed objpatch finds the runtimes (objpatch/engine/runtime_path.c): the
# header is rewritten only when BINDIR, LIBDIR or SONAME change, so an
# unchanged `make install` writes nothing into $(BUILD).  realpath -s: the
# installed tree's symlinks are not this machine's.
INSTALL_DIRS_H := $(BUILD)/gen/objpatch/engine/install_dirs.h
$(INSTALL_DIRS_H): FORCE
	@mkdir -p $(dir $@)
	@gen() { echo '/* Generated by make from BINDIR, LIBDIR and SONAME. */'; \
		echo '#define OBJPATCH_LIBDIR_REL "'"$$(realpath -s -m --relative-to='$(BINDIR)' '$(LIBDIR)')"'"'; \
		echo '#define OBJPATCH_LIBDIR "$(LIBDIR)"'; \
		echo '#define OBJPATCH_SONAME "$(SONAME)"'; }; \
	gen | cmp -s - $@ || { echo "  GEN     $@"; gen > $@; }
$(BUILD)/obj/objpatch/engine/runtime_path.o: $(INSTALL_DIRS_H)
$(BUILD)/obj/objpatch/engine/runtime_path.o: ALL_CFLAGS += -include $(INSTALL_DIRS_H)
.PHONY: FORCE
FORCE:

$(BUILD)/objpatch: $(OBJPATCH_OBJ)
	$(CC) $(LDFLAGS) -o $@ $^ $(ELF_LIBS)

$(BUILD)/objpatch-cc: $(CC_WRAP_OBJ)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/objpatch-c++: $(BUILD)/objpatch-cc
	ln -sf objpatch-cc $@

# Under SANITIZE=1 only the tools are instrumented (the runtime never is, see
# RT_ALL_CFLAGS), so that pass leaves out the tests that would run the very
# same code again: the runtime on other machines under qemu-user (t/95-rt-*),
# the runtime under ptrace (t/92), threads cut by exit (t/93) and 100 M calls
# streamed (t/94), whose tools' part the other tests and the report fuzz
# harness cover, t/80 and t/91, which build their own ASan/UBSan (and
# TSan) programs in every pass, and t/41 and t/44, whose malformed inputs
# and mutants the first pass already runs through an ASan/UBSan copy of the
# tools (with leak checks, which this pass leaves off).  --timer: CI logs
# show where the time goes.
# t/95-rt-i386-system.t boots an i386 kernel under qemu-system-i386 without
# KVM (minutes): make check-i386-system runs it, make check does not.
SYSTEM_TESTS := t/95-rt-i386-system.t
CHECK_TESTS := $(filter-out $(SYSTEM_TESTS),$(sort $(wildcard t/*.t)))
ifeq ($(SANITIZE),1)
CHECK_TESTS := $(filter-out t/95-rt-% t/80-% t/91-% t/92-% t/93-% t/94-% t/41-% t/44-%,$(CHECK_TESTS))
endif
# The sanitized pass tells the tests (t/lib.sh's sanitized_pass) so that those
# which build an ASan copy of the tools use the build itself instead, and a
# sanitizer's report exits 99: it cannot pass for a clean rejection (status 1).
# LeakSanitizer's scan at exit took 90 of a sanitized recordmcount's 131 ms
# on a small object, tripling this pass; leaks are looked for by the first
# pass's ASan copies (t/41, t/44, t/60, t/71) and by make fuzz instead.
ifeq ($(SANITIZE),1)
check: export RMC_TEST_SANITIZED := 1
check: export ASAN_OPTIONS := exitcode=99:detect_leaks=0
check: export UBSAN_OPTIONS := halt_on_error=1:exitcode=99:print_stacktrace=1
endif
# Each test through t/limit.sh: one that hangs is killed, with what it
# started, after T_LIMIT seconds (1200), and named.
check: all
	prove -j2 --timer -e t/limit.sh $(CHECK_TESTS)

# make check-quick: the tests that take under 20 s each (make check --timer
# on the 2-core machine), for the edit-build-test loop; make check before a
# commit still runs them all.
SLOW_TESTS := $(addprefix t/,20-differential.t 33-self-check.t 41-malformed.t 42-fuzz-regress.t \
	44-mutations.t 60-protos.t 70-format.t 71-annotate.t 80-patch.t 81-cc.t 84-install.t 90-runtime.t \
	91-stress.t 94-ending-signals.t 95-rt-%.t 96-args.t 97-attach.t 99-attach-stress.t)
.PHONY: check-quick
check-quick: all
	prove -j2 --timer -e t/limit.sh $(filter-out $(SLOW_TESTS),$(CHECK_TESTS))

# The i386 runtime, the i386 objpatch and the test programs on a real i386
# kernel (scripts/i386-system.sh: Debian's 686 kernel under
# qemu-system-i386, whose packages scripts/deps.sh does not install: apt-get
# install qemu-system-x86 cpio).  About 100 s on the idle 2-core machine
# (rt_toggle 55 s, the boot 20 s), 164 s the first time (the kernel
# downloaded, the i386 objpatch built): not part of check.
.PHONY: check-i386-system
check-i386-system: all
	prove --timer -e t/limit.sh t/95-rt-i386-system.t

# Real projects from Debian source packages (t/projects/: zlib,
# hello, cJSON, FriBidi, TinyXML-2) built with objpatch-cc through their own
# build systems, tested, checked and traced: minutes, so not part of check;
# .ci/run runs it after check.  The sources are cached outside the repo
# (scripts/debian-source.sh).
.PHONY: check-projects
check-projects: all
	prove -j2 --timer -e t/limit.sh $(sort $(wildcard t/projects/*.t))

demo:
	scripts/deps.sh
	$(MAKE) all
	scripts/demo.sh

bench: all
	bench/run.sh

# The runtime against uftrace; writes bench/RESULTS-runtime.md:
# then objpatch report's cost per call (bench/format.sh, its section 4), the
# end-to-end section (a text trace on disk, Lua included: bench/e2e.sh) and
# perf's profile of record, report and run (bench/profile.sh, section 5).
bench-runtime: all
	bench/runtime.sh
	bench/format.sh
	bench/e2e.sh
	bench/profile.sh
	bench/args.sh

# What typed arguments cost per traced call, its section of bench/RESULTS-runtime.md.
bench-args: all
	bench/args.sh

bench-e2e: all
	bench/e2e.sh

# NOP'd sites over random code layouts; writes bench/RESULTS-layout.md.
bench-layout: all
	bench/layout.sh

# The runtime's cost per traced call on each machine under qemu-user;
# writes bench/RESULTS-cross.md.
bench-cross: all
	bench/cross.sh

# Each instrumentation form's cost with every site a NOP, on Lua 5.4, per
# machine and compiler; writes bench/RESULTS-instrument.md.
bench-instrument: all
	bench/instrument.sh

# objpatch-cc's own cost on real projects' builds (at most 5%);
# writes bench/RESULTS-wrapper.md.
bench-wrapper: all
	bench/wrapper.sh

# The runtime's cost per traced call against LLVM XRay's basic and FDR modes
# and uftrace, the anchor of the recording goal; writes bench/RESULTS-xray.md.
bench-xray: all
	bench/xray.sh

# Kbuild on a real kernel (scripts/kbuild-test.sh: linux-source-6.1 for ARM,
# built with our tool and with the kernel's): minutes, so not part of check.
.PHONY: kbuild-test
kbuild-test: $(BUILD)/recordmcount
	scripts/kbuild-test.sh

# Real kernel traces typed (scripts/kernel-retval-test.sh):
# linux-source-6.12 for x86_64 and arm64 recorded by our tool, booted under
# qemu with the graph tracer's return values on, its dumped trace annotated.
# Installs linux-source-6.12 and the qemu systems when missing; not part of
# check.
.PHONY: kernel-retval-test
kernel-retval-test: $(BUILD)/recordmcount $(BUILD)/objpatch
	scripts/kernel-retval-test.sh

# The kernel prints typed values itself (kernel/): the
# series applied to linux-source-6.12, built for x86_64 and 32-bit ARM with
# our tool, booted under qemu for the ftrace self-tests, for a trace whose
# typed lines must be those objpatch annotate makes of the raw values, and
# with an initramfs that loads and traces a module; on ARM also built
# without the series, to check that it breaks down the same.  Not part of
# check.
.PHONY: kernel-series-test
kernel-series-test: $(BUILD)/recordmcount $(BUILD)/objpatch
	scripts/kernel-series-test.sh

# Linux 7.3 on every machine that still runs recordmcount: built
# with the kernel's recorder and with ours from one .config, both booted
# under qemu-system; entries, self-tests, sites per object, a trace typed by
# annotate, the recorder's CPU.  MACHINES="mipsel sh4" runs a subset.  Not
# part of check.
.PHONY: kernel-matrix-test
kernel-matrix-test: $(BUILD)/recordmcount $(BUILD)/objpatch
	scripts/kernel-matrix-test.sh $(MACHINES)

# libFuzzer harnesses (fuzz/): `make fuzz` builds them with clang under
# ASan/UBSan and runs each for FUZZ_TIME seconds on a copy of its corpus
# (fuzz/run.sh); `make fuzz-build` only builds them (t/42).
FUZZ_CC ?= clang
FUZZ_TIME ?= 60
FUZZ_HARNESSES := rmc_pass dwarf_table table_reader annotate report
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS := -std=gnu11 $(WARN) -D_GNU_SOURCE -DVERSION='"$(VERSION)"' -O1 -g $(FUZZ_SAN)
FUZZ_LIB_OBJ := $(patsubst %.c,$(BUILD)/fuzz/obj/%.o,fuzz/fuzz.c $(filter-out recordmcount/main.c,$(RMC_SRC)) \
	$(TRACE_SRC) objpatch/engine/annotate.c objpatch/engine/annotate_args.c objpatch/engine/opts.c objpatch/engine/report.c objpatch/engine/analyses.c)
.PHONY: fuzz fuzz-build
fuzz-build: $(FUZZ_HARNESSES:%=$(BUILD)/fuzz/%)
fuzz: fuzz-build
	fuzz/run.sh $(BUILD)/fuzz $(FUZZ_TIME) $(FUZZ_HARNESSES)
$(BUILD)/fuzz/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(DEPFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@
$(BUILD)/fuzz/libfuzz.a: $(FUZZ_LIB_OBJ)
	rm -f $@
	$(AR) rcs $@ $^
$(BUILD)/fuzz/%: fuzz/%.c $(BUILD)/fuzz/libfuzz.a
	$(FUZZ_CC) $(FUZZ_CFLAGS) -I. -fsanitize=fuzzer -o $@ $(filter %.c %.a,$^) -ldw -lelf
$(BUILD)/fuzz/annotate: $(BUILD)/fuzz/annotate.image
$(BUILD)/fuzz/annotate.image: fuzz/annotate-image.sh testdata/annotate/kernel.c $(BUILD)/recordmcount
	fuzz/annotate-image.sh $(BUILD)/recordmcount $@

# `make install` and `make uninstall` (README, "Install"): the tools, the
# runtime with its SONAME links, the archive, the header, objpatch.pc and the
# man pages; each other machine's runtime in LIBDIR/objpatch/<machine>/, where
# objpatch run looks for it.  objpatch.pc is written straight into DESTDIR,
# so an up-to-date tree gets nothing new in $(BUILD) (a root-owned file there
# would stop the next `make`).
CROSS_BUILT := $(patsubst runtime-%,%,$(CROSS_RUNTIMES))
MAN_PAGES := $(wildcard man/*.[135])
INSTALLED := $(TOOLS:%=$(BINDIR)/%) $(LIBDIR)/libobjpatch.so.$(LIBVERSION) $(LIBDIR)/$(SONAME) \
	$(LIBDIR)/libobjpatch.so $(LIBDIR)/libobjpatch.a $(INCLUDEDIR)/objpatch.h $(PKGCONFIGDIR)/objpatch.pc \
	$(foreach p,$(MAN_PAGES),$(MANDIR)/man$(subst .,,$(suffix $(p)))/$(notdir $(p))) \
	$(CROSS_BUILT:%=$(LIBDIR)/objpatch/%/libobjpatch.so) \
	$(BINDIR)/objpatch-c++ $(MANDIR)/man1/objpatch-c++.1
.PHONY: uninstall
install: all
	install -d $(sort $(dir $(INSTALLED:%=$(DESTDIR)%)))
	install -m 755 $(TOOLS:%=$(BUILD)/%) $(DESTDIR)$(BINDIR)/
	ln -sf objpatch-cc $(DESTDIR)$(BINDIR)/objpatch-c++
	install -m 755 $(BUILD)/libobjpatch.so.$(LIBVERSION) $(DESTDIR)$(LIBDIR)/
	ln -sf libobjpatch.so.$(LIBVERSION) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libobjpatch.so
	install -m 644 $(BUILD)/libobjpatch.a $(DESTDIR)$(LIBDIR)/
	install -m 644 objpatch/lib/objpatch.h $(DESTDIR)$(INCLUDEDIR)/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
		-e 's|@VERSION@|$(VERSION)|' objpatch/lib/objpatch.pc.in > $(DESTDIR)$(PKGCONFIGDIR)/objpatch.pc
	chmod 644 $(DESTDIR)$(PKGCONFIGDIR)/objpatch.pc
	$(foreach s,1 3 5,install -m 644 $(filter %.$(s),$(MAN_PAGES)) $(DESTDIR)$(MANDIR)/man$(s)/;)
	ln -sf objpatch-cc.1 $(DESTDIR)$(MANDIR)/man1/objpatch-c++.1
	$(foreach q,$(CROSS_BUILT),install -m 755 $(BUILD)/$(q)/libobjpatch.so $(DESTDIR)$(LIBDIR)/objpatch/$(q)/;)

# Exactly what install put; the directories stay (they may hold others' files).
uninstall:
	rm -f $(INSTALLED:%=$(DESTDIR)%)

clean:
	rm -rf $(BUILD)
