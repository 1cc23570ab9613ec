# pt2scope build.
#
#   make            libpt2scope, build/pt2scope (CLI), build/pt2scoped (daemon);
#                   never installs: names what is missing and points to make deps
#   make deps       install exactly what is missing (service/tools/deps.sh)
#   make run        deps, build, start the daemon on 127.0.0.1:8080 over tests/fixtures
#                   (PORT=8081, LISTEN=0.0.0.0 to change)
#   make test       deps, then every stage (format, lint, Check suites, shell tests,
#                   ASan+UBSan, contract) and one "N passed, N failed, N skipped" line;
#                   the tests also build build/pt2scoped-test (the daemon with test hooks)
#   make python     build/libpt2scope.so (also built by make) into the Python package
#                   service/python/pt2scope and its wheel under build/python
#   make fixtures   regenerate tests/fixtures/*.pt2 from ../shared/corpus/bins
#   make bench      benchmarks (never part of make test)
#   make image-test build docker/Dockerfile and run the image (part of make test)
#
# Sources are found by wildcard: a new service/lib/foo.c joins the library and
# a new tests/unit/test_foo.c becomes its own suite without touching this file.

BUILD    ?= build
SAN      ?=
CC       ?= cc
# zlib: pt2_crc32's fallback and pt2_zipstream's inflate; libzip's pkg-config --libs
# does not name -lz, so it is asked for (zlib1g-dev) like the others.
PKGS     := libzip libcjson libmicrohttpd libcurl nettle zlib
TESTPKGS := check
# npm builds the /docs and /openapi.json assets; without it the daemon links
# only openapi.yaml (NPM= forces that).
NPM      ?= $(shell command -v npm 2>/dev/null)
PORT     ?= 8080
LISTEN   ?= 127.0.0.1

WARN     := -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wstrict-prototypes \
            -Wmissing-prototypes -Wvla -Wno-unused-parameter
CFLAGS   ?= -O2 -g
ifeq ($(SAN),1)
CFLAGS   := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
            -fno-sanitize-recover=undefined
LDSAN    := -fsanitize=address,undefined
endif
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CHK_CFLAGS = $(shell pkg-config --cflags $(TESTPKGS) 2>/dev/null)
CHK_LIBS   = $(shell pkg-config --libs $(TESTPKGS) 2>/dev/null)
# The layering is enforced by the include path: the CLI sees only the public
# header, the daemon the public header and its own; only the library and the
# tests see the library's internal headers (tests/shell/layering.sh).
INC_lib    := -Iservice/include -Iservice/lib -I$(BUILD)/gen
INC_remote := -Iservice/include -Iservice/remote
INC_cli    := -Iservice/include -Iservice/remote
INC_daemon := -Iservice/include -Iservice/remote -Iservice/daemon
INC_abi    := -Iservice/include -Iservice/remote
LAYER_INC   = -Iservice/include -Iservice/lib -Iservice/remote -Iservice/daemon -Itests/support
$(BUILD)/obj/service/lib/%.o:    LAYER_INC = $(INC_lib)
$(BUILD)/obj/service/remote/%.o: LAYER_INC = $(INC_remote)
$(BUILD)/obj/service/cli/%.o:    LAYER_INC = $(INC_cli)
$(BUILD)/obj/service/daemon/%.o: LAYER_INC = $(INC_daemon)
$(BUILD)/obj-hooks/service/daemon/%.o: LAYER_INC = $(INC_daemon)
ALL_CFLAGS = -std=c11 -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 $(WARN) $(CFLAGS) \
             $(LAYER_INC) $(PKG_CFLAGS) -MMD -MP
LIBS       = $(PKG_LIBS) -lpthread -ldl -lm

LIB_SRC    := $(sort $(wildcard service/lib/*.c))
# URLs and object stores (libcurl) over the library's public byte source API:
# a layer of its own, linked by the CLI and the daemon (service/remote/pt2_remote.h).
REM_SRC    := $(sort $(wildcard service/remote/*.c))
CLI_SRC    := $(sort $(wildcard service/cli/*.c))
DMN_SRC    := $(sort $(wildcard service/daemon/*.c))
SUP_SRC    := $(sort $(filter-out tests/support/fakecuda.c,$(wildcard tests/support/*.c)))
UNIT_SRC   := $(sort $(wildcard tests/unit/test_*.c))
HTTP_SRC   := $(sort $(wildcard tests/http/test_*.c))

# Test hooks: the response recorder (PT2SCOPE_RECORD_DIR, for the contract
# stage) and the job gate (a test holds workers busy without a sleep) exist
# only in a second build of the daemon's objects, with -DPT2SCOPE_TEST_HOOKS,
# under $(BUILD)/obj-hooks. That build is linked into the HTTP suites (their
# own objects are built with the define too, as they share the daemon's
# structs) and into $(BUILD)/pt2scoped-test, which the contract stage and the
# tests that need a hook start. $(BUILD)/pt2scoped carries none of it; the
# hook-only modules are not even linked (tests/shell/hooks.sh checks).
HOOKS_DEF  := -DPT2SCOPE_TEST_HOOKS
HOOKS_SRC  := service/daemon/pt2d_record.c service/daemon/pt2d_gate.c

LIB_OBJ    := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
REM_OBJ    := $(REM_SRC:%.c=$(BUILD)/obj/%.o)
CLI_OBJ    := $(CLI_SRC:%.c=$(BUILD)/obj/%.o)
DMN_OBJ    := $(patsubst %.c,$(BUILD)/obj/%.o,$(filter-out $(HOOKS_SRC),$(DMN_SRC)))
DMN_HOBJ   := $(DMN_SRC:%.c=$(BUILD)/obj-hooks/%.o)
# The test build's daemon objects minus main() are linked into the HTTP suites.
DMN_HCORE  := $(filter-out $(BUILD)/obj-hooks/service/daemon/main.o,$(DMN_HOBJ))
SUP_OBJ    := $(SUP_SRC:%.c=$(BUILD)/obj/%.o)
UNIT_BIN   := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
HTTP_BIN   := $(HTTP_SRC:tests/http/%.c=$(BUILD)/tests/%)
LIBA       := $(BUILD)/libpt2scope.a
REMA       := $(BUILD)/libpt2remote.a
FAKECUDA   := $(BUILD)/fakecuda/libcuda.so.1 $(BUILD)/fakecuda/old/libcuda.so.1

.PHONY: all deps build-deps run run-examples test test-unit test-san test-contract test-shell \
        test-browser \
        test-fuzz fuzz fixtures bench format format-check clean lint
PROGRAMS   := $(BUILD)/pt2scope
TEST_DAEMON :=
ifneq ($(wildcard service/daemon/main.c),)
PROGRAMS   += $(BUILD)/pt2scoped
TEST_DAEMON := $(BUILD)/pt2scoped-test
endif
all: $(LIBA) $(REMA) $(PROGRAMS)

# --- dependencies ----------------------------------------------------------
# deps installs what make run and make test need (as root; otherwise it prints
# the apt-get command and fails); build-deps only reports what a build lacks.
# tests/shell/deps.sh tests both with fake apt-get, pkg-config, node and npm.
deps:
	@PT2SCOPE_PYTHON=$(PYTHON) bash service/tools/deps.sh install

build-deps:
	@bash service/tools/deps.sh build

# --- objects and programs --------------------------------------------------
$(BUILD)/obj/service/%.o: service/%.c | build-deps
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(BUILD)/obj/tests/%.o: tests/%.c | build-deps
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(CHK_CFLAGS) -c $< -o $@

# The test build (see HOOKS_DEF above).
$(BUILD)/obj-hooks/service/%.o: service/%.c | build-deps
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(HOOKS_DEF) -c $< -o $@

$(BUILD)/obj-hooks/tests/%.o: tests/%.c | build-deps
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(HOOKS_DEF) $(CHK_CFLAGS) -c $< -o $@

# The compiler flags of one layer (lib, cli, daemon), for tests/shell/layering.sh.
print-cflags-%:
	@echo $(CC) -std=c11 -D_GNU_SOURCE $(WARN) $(INC_$*) $(PKG_CFLAGS)

# The torch shim table is data with sources (service/lib/data/README.md): the
# library's C table is generated from that copy, never edited by hand.
SHIM_TSV   := service/lib/data/shim-versions.tsv
$(BUILD)/gen/pt2_shim_table.inc: $(SHIM_TSV) service/tools/gen_shims.sh
	@mkdir -p $(dir $@)
	sh service/tools/gen_shims.sh $(SHIM_TSV) $@
$(BUILD)/obj/service/lib/pt2_shims.o: $(BUILD)/gen/pt2_shim_table.inc

$(LIBA): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(REMA): $(REM_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/pt2scope: $(CLI_OBJ) $(REMA) $(LIBA)
	$(CC) $(LDSAN) -o $@ $(CLI_OBJ) $(REMA) $(LIBA) $(LIBS)

$(BUILD)/pt2scoped: $(DMN_OBJ) $(REMA) $(LIBA)
	$(CC) $(LDSAN) -o $@ $(DMN_OBJ) $(REMA) $(LIBA) $(LIBS)

$(BUILD)/pt2scoped-test: $(DMN_HOBJ) $(REMA) $(LIBA)
	$(CC) $(LDSAN) -o $@ $(DMN_HOBJ) $(REMA) $(LIBA) $(LIBS)

$(BUILD)/tests/%: $(BUILD)/obj/tests/unit/%.o $(SUP_OBJ) $(REMA) $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) $(LDSAN) $(LDWRAP) -o $@ $< $(UNIT_EXTRA) $(SUP_OBJ) $(REMA) $(LIBA) $(CHK_LIBS) $(LIBS)

# The CLI's report writer is a suite of its own (tests/unit/test_cli_format.c):
# linked with that one CLI object, its header seen from the test alone.
UNIT_EXTRA =
$(BUILD)/tests/test_cli_format: UNIT_EXTRA = $(BUILD)/obj/service/cli/cli_format.o
$(BUILD)/tests/test_cli_format: $(BUILD)/obj/service/cli/cli_format.o
$(BUILD)/obj/tests/unit/test_cli_format.o: LAYER_INC += -Iservice/cli

# Allocation-failure injection: the library's allocations go through the test's
# failing allocator (tests/unit/test_oom.c), so every out-of-memory path runs.
LDWRAP =
$(BUILD)/tests/test_oom: LDWRAP = -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=strdup

$(HTTP_BIN): $(BUILD)/tests/%: $(BUILD)/obj-hooks/tests/http/%.o $(SUP_OBJ) $(DMN_HCORE) $(REMA) $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) $(LDSAN) -o $@ $< $(SUP_OBJ) $(DMN_HCORE) $(REMA) $(LIBA) $(CHK_LIBS) $(LIBS)

# Stand-in CUDA driver used by the probe tests (never the real one).
$(BUILD)/fakecuda/libcuda.so.1: tests/support/fakecuda.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fPIC -shared -Wl,-soname,libcuda.so.1 -o $@ $<

$(BUILD)/fakecuda/old/libcuda.so.1: tests/support/fakecuda.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -DFAKECUDA_OLD_API -fPIC -shared -Wl,-soname,libcuda.so.1 -o $@ $<

# A real Windows model library (PE/COFF DLL) for tests/unit/test_pe.c and the
# pe fuzz seeds, built at test time with Debian's mingw-w64 cross compiler
# (make deps installs it), never committed: tests/fixtures/src/win_model.c
# linked without the CRT against an import library dlltool makes from
# win_torch_cpu.def, so it imports exactly what its source calls. Without
# the compiler nothing is built and test_pe says it skips.
MINGW_CC      ?= x86_64-w64-mingw32-gcc
MINGW_DLLTOOL ?= x86_64-w64-mingw32-dlltool
WIN_DIR       := $(BUILD)/fixtures/win
WIN_DLL       := $(if $(shell command -v $(MINGW_CC) 2>/dev/null),$(WIN_DIR)/win_model.pyd)

$(WIN_DIR)/libtorch_cpu.a: tests/fixtures/src/win_torch_cpu.def
	@mkdir -p $(dir $@)
	$(MINGW_DLLTOOL) -d $< -l $@

$(WIN_DIR)/win_model.pyd: tests/fixtures/src/win_model.c $(WIN_DIR)/libtorch_cpu.a
	$(MINGW_CC) -O2 -Wall -Wextra -Werror -shared -nostdlib -Wl,-e,win_model_entry \
	  -Wl,--subsystem,windows -Wl,--no-insert-timestamp -o $@ $< $(WIN_DIR)/libtorch_cpu.a -lkernel32

# A package around it (tests/unit/test_oom.c inspects it under allocation failure).
$(WIN_DIR)/win_model.pt2: $(WIN_DIR)/win_model.pyd tests/fixtures/build.py
	python3 tests/fixtures/build.py --pyd $< $@

# The same source as an ELF shared object: the ELF library whose torch floor the PE's must equal.
$(WIN_DIR)/win_model_elf.so: tests/fixtures/src/win_model.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -Wall -Wextra -Werror -shared -fPIC -o $@ $<

# The same source linked by LLVM's lld-link (the MSVC linker's command line and output) with
# torch_cpu.dll delay-loaded (/delayload): a real delay-load directory, which GNU ld does not
# write. Import libraries by llvm-dlltool; `llvm-readobj --coff-imports` shows the tables
# (tests/shell/runtime.sh compares). make deps installs lld and llvm.
LLD_LINK      ?= lld-link
LLVM_DLLTOOL  ?= llvm-dlltool
WIN_DELAY     := $(if $(and $(WIN_DLL),$(shell command -v $(LLD_LINK) 2>/dev/null),$(shell command -v $(LLVM_DLLTOOL) 2>/dev/null)),$(WIN_DIR)/win_delay.pyd)

$(WIN_DIR)/%.lib: tests/fixtures/src/win_%.def
	@mkdir -p $(dir $@)
	$(LLVM_DLLTOOL) -m i386:x86-64 -d $< -l $@

$(WIN_DIR)/%.obj: tests/fixtures/src/%.c
	@mkdir -p $(dir $@)
	$(MINGW_CC) -O2 -Wall -Wextra -Werror -c -o $@ $<

$(WIN_DIR)/win_delay.pyd: $(WIN_DIR)/win_model.obj $(WIN_DIR)/win_delay_helper.obj \
                          $(WIN_DIR)/torch_cpu.lib $(WIN_DIR)/kernel32.lib
	$(LLD_LINK) /dll /nodefaultlib /entry:win_model_entry /subsystem:windows \
	  /delayload:torch_cpu.dll /Brepro /implib:$(@:.pyd=.exports.lib) /out:$@ $^

$(WIN_DIR)/win_delay.pt2: $(WIN_DIR)/win_delay.pyd tests/fixtures/build.py
	python3 tests/fixtures/build.py --pyd $< $@

test-unit: $(WIN_DLL) $(WIN_DLL:.pyd=.pt2) $(WIN_DIR)/win_model_elf.so $(WIN_DELAY) $(WIN_DELAY:.pyd=.pt2)
test-shell fuzz test-fuzz: $(WIN_DLL) $(WIN_DLL:.pyd=.pt2) $(WIN_DELAY) $(WIN_DELAY:.pyd=.pt2)

# --- running ---------------------------------------------------------------
# The examples `make run` prints, for the address it listens on (a wildcard
# LISTEN is reached on loopback); tests/shell/make_run_examples.sh runs them
# as printed.
RUN_HOST = $(if $(filter 0.0.0.0,$(LISTEN)),127.0.0.1,$(LISTEN))
run-examples:
	@echo "  curl -s 'http://$(RUN_HOST):$(PORT)/v1/inspect?path=cuda_sm90a_v8.pt2'"
	@echo "  curl -s 'http://$(RUN_HOST):$(PORT)/v1/inspect?path=cuda_fatbin_multi.pt2&target=H100&target=8.0'"
	@echo "  curl -s -X POST --data-binary @tests/fixtures/cpu_x86_64.pt2 \\"
	@echo "       -H 'Content-Type: application/octet-stream' http://$(RUN_HOST):$(PORT)/v1/inspect"
	@echo "  curl -s -H 'Content-Type: application/json' -d '{\"path\": \"cuda_sm90a_v8.pt2\", \"inputs\": {\"image\": [8, 3, 512, 512], \"scale\": [8]}}' http://$(RUN_HOST):$(PORT)/v1/validate"
	@echo "  curl -s http://$(RUN_HOST):$(PORT)/v1/node"
	@echo "  curl -s 'http://$(RUN_HOST):$(PORT)/v1/packages?target=B200'"
	@echo "  open http://$(RUN_HOST):$(PORT)/ for the operator page, http://$(RUN_HOST):$(PORT)/docs for the API reference"

# A taken port is one line naming the variable and the next free port, not
# the daemon's bind error. CORS_ORIGIN=https://ui.example lets a page on that
# origin call the API (--cors-origin; PT2SCOPE_CORS_ORIGIN works too).
CORS_ORIGIN ?=
run: deps
	@$(MAKE) --no-print-directory all
	@inuse() { bash -c "exec 3<>/dev/tcp/$(RUN_HOST)/$$1" 2>/dev/null; }; \
	if inuse $(PORT); then p=$(PORT); \
	  while [ "$$p" -lt 65535 ] && { p=$$((p + 1)); inuse "$$p"; }; do :; done; \
	  echo "pt2scope: $(LISTEN):$(PORT) is already in use; pick another port: make run PORT=$$p" >&2; \
	  exit 2; fi
	@echo "pt2scoped on http://$(RUN_HOST):$(PORT) (model root tests/fixtures$(if $(CORS_ORIGIN),; CORS for $(CORS_ORIGIN))). Try:"
	@$(MAKE) -s --no-print-directory run-examples
	exec $(BUILD)/pt2scoped --listen $(LISTEN):$(PORT) --model-root tests/fixtures$(if $(CORS_ORIGIN), --cors-origin '$(CORS_ORIGIN)')

# --- tests -----------------------------------------------------------------
# Each suite runs from the repository root; CK_FORK stays on so a crash in one
# test is reported, not fatal to the suite.
test-unit: all $(TEST_DAEMON) $(UNIT_BIN) $(HTTP_BIN) $(FAKECUDA)
	@fail=0; for t in $(UNIT_BIN) $(HTTP_BIN); do \
	  echo "== $$t"; PT2SCOPE_BUILD=$(BUILD) $$t || fail=1; \
	done; exit $$fail

test-san:
	$(MAKE) --no-print-directory BUILD=build/san SAN=1 test-unit

test-shell: all $(TEST_DAEMON) $(FAKECUDA)
	@for s in tests/shell/*.sh; do [ -f "$$s" ] || continue; echo "== $$s"; \
	  PT2SCOPE_BUILD=$(BUILD) bash $$s || exit 1; done

# Lint the spec, prove the validator can fail, then validate every response
# the HTTP suites, shell tests and tests/contract/exercise.sh receive against
# openapi/openapi.yaml (tests/contract/run.sh).
test-contract: all $(TEST_DAEMON) $(HTTP_BIN) $(FAKECUDA) $(WIN_DLL:.pyd=.pt2) $(WIN_DELAY:.pyd=.pt2)
	@bash tests/contract/run.sh $(BUILD)

# The test oracles (real libtorch builds, read by tests/shell/libtorch.sh) are
# fetched into a cache outside the checkout, only when missing; a failed fetch
# leaves that test to say so.
test: deps
	-@bash service/tools/oracle.sh fetch
	@MAKE="$(MAKE)" BUILD=$(BUILD) bash tests/run.sh format-check lint test-unit test-shell \
	  test-san test-contract test-python test-browser test-fuzz test-k8s test-sarif image-test

fixtures:
	python3 tests/fixtures/build.py --bins ../shared/corpus/bins --out tests/fixtures

# wrk is needed by the benchmark only, so `deps` does not insist on it.
bench: all
	@command -v wrk >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null || exit 1; \
	  else echo "run as root: apt-get install -y wrk"; exit 1; fi; }
	@BUILD=$(BUILD) bash tests/bench/run.sh

format:
	clang-format -i $(FORMAT_FILES)

FORMAT_FILES = $(LIB_SRC) $(REM_SRC) $(CLI_SRC) $(DMN_SRC) $(wildcard service/*/*.h) \
               $(wildcard tests/unit/*.c tests/http/*.c tests/http/*.h tests/support/*.[ch])

# Functions no code here may call (unbounded or unchecked); snprintf and
# the checked pt2_num_* parsers (pt2scope.h) replace them.
BANNED := sprintf|vsprintf|strcpy|strcat|strncpy|atoi|atol|atoll|strtok|gets|strtol|strtoul|strtoll|strtoull|strtod
lint:
	@if grep -nE '(^|[^a-z_])($(BANNED))[[:space:]]*\(' $(LIB_SRC) $(REM_SRC) $(CLI_SRC) $(DMN_SRC) $(ABI_SRC) \
	     $(wildcard service/*/*.h); then echo "lint: banned function (see above)"; exit 1; \
	 else echo "lint: clean"; fi

# Style is part of the build: the committed .clang-format decides.
format-check:
	@command -v clang-format >/dev/null || { echo "clang-format missing (apt-get install clang-format)"; exit 1; }
	@clang-format --dry-run --Werror $(FORMAT_FILES) && echo "format: clean"

clean:
	rm -rf build

# --- openapi ---------------------------------------------------------------
# openapi/openapi.yaml is the HTTP contract. `npm ci` installs the tools pinned
# in openapi/package-lock.json: Redocly CLI (lint), Ajv + ajv-formats (contract
# validation), yaml (renders openapi.json) and swagger-ui-dist (the /docs page).
# pt2scoped embeds the YAML, its JSON rendering and the Swagger UI bundle
# (service/daemon/pt2d_docs_assets.S), so building the daemon needs `npm ci`.
# openapi.json is generated here, never edited or committed.
NPM_STAMP  := openapi/node_modules/.pt2scope-npm-ci
OAPI_GEN   := $(BUILD)/openapi
ifneq ($(NPM),)
OAPI_FILES := $(OAPI_GEN)/openapi.yaml $(OAPI_GEN)/openapi.json \
              $(OAPI_GEN)/swagger-ui-bundle.js $(OAPI_GEN)/swagger-ui.css
DOCS_OBJ   := $(BUILD)/obj/service/daemon/pt2d_docs_assets.o
DOCS_DEFS  :=
else
# No npm: the daemon still builds, and says how to get /docs and /openapi.json.
OAPI_FILES := $(OAPI_GEN)/openapi.yaml
DOCS_OBJ   := $(BUILD)/obj/service/daemon/pt2d_docs_yaml_only.o
DOCS_DEFS  := -DPT2D_DOCS_YAML_ONLY
endif
DMN_OBJ    += $(DOCS_OBJ)
DMN_HOBJ   += $(DOCS_OBJ)
DMN_HCORE  += $(DOCS_OBJ)

$(NPM_STAMP): openapi/package.json openapi/package-lock.json
	cd openapi && npm ci --no-audit --no-fund
	@touch $@

$(OAPI_GEN)/openapi.yaml: openapi/openapi.yaml
	@mkdir -p $(dir $@)
	cp $< $@

$(OAPI_GEN)/openapi.json: openapi/openapi.yaml openapi/scripts/render.mjs $(NPM_STAMP)
	node openapi/scripts/render.mjs $< $@

$(OAPI_GEN)/swagger-ui%: $(NPM_STAMP)
	@mkdir -p $(dir $@)
	cp openapi/node_modules/swagger-ui-dist/swagger-ui$* $@

# .incbin inputs are invisible to -MMD: they are listed here instead.
$(DOCS_OBJ): service/daemon/pt2d_docs_assets.S service/daemon/pt2d_blob.inc $(OAPI_FILES)
	@mkdir -p $(dir $@)
	@[ -n "$(NPM)" ] || echo "pt2scope: no npm: pt2scoped is built without /docs and /openapi.json (make deps installs npm)"
	$(CC) -c $(DOCS_DEFS) -Wa,--noexecstack -Wa,-I$(OAPI_GEN) -o $@ $<

$(BUILD)/pt2scoped $(BUILD)/pt2scoped-test $(HTTP_BIN): $(DOCS_OBJ)
test-contract: $(NPM_STAMP)

# --- operator page -----------------------------------------------------------
# The page at / (service/daemon/page/: plain HTML, CSS and JavaScript, no build
# step) is linked into pt2scoped by service/daemon/pt2d_page_assets.S, in
# every build, npm or not (pt2d_page.h).
PAGE_FILES := $(wildcard service/daemon/page/*)
PAGE_OBJ   := $(BUILD)/obj/service/daemon/pt2d_page_assets.o
DMN_OBJ    += $(PAGE_OBJ)
DMN_HOBJ   += $(PAGE_OBJ)
DMN_HCORE  += $(PAGE_OBJ)

# .incbin inputs are invisible to -MMD: they are listed here instead.
$(PAGE_OBJ): service/daemon/pt2d_page_assets.S service/daemon/pt2d_blob.inc $(PAGE_FILES)
	@mkdir -p $(dir $@)
	$(CC) -c -Wa,--noexecstack -Wa,-Iservice/daemon/page -o $@ $<

$(BUILD)/pt2scoped $(BUILD)/pt2scoped-test $(HTTP_BIN): $(PAGE_OBJ)

# --- browser tests -------------------------------------------------------------
# tests/browser/: Debian's chromium (make deps installs it) driven by
# playwright-core, pinned in tests/browser/package-lock.json and installed
# with `npm ci` (it never downloads a browser). The stage starts
# build/pt2scoped over tests/fixtures, runs the page through each state and
# leaves a screenshot of each under $(BUILD)/browser/.
BROWSER_STAMP := tests/browser/node_modules/.pt2scope-npm-ci

$(BROWSER_STAMP): tests/browser/package.json tests/browser/package-lock.json
	cd tests/browser && npm ci --no-audit --no-fund
	@touch $@

test-browser: all $(FAKECUDA) $(BROWSER_STAMP) $(WIN_DELAY:.pyd=.pt2)
	@BUILD=$(BUILD) bash tests/browser/run.sh


# --- fuzzing ---------------------------------------------------------------
# libFuzzer harnesses in tests/fuzz/ (a whole package, single binaries, every
# JSON entry point, text fields, the daemon's request parsing), built with
# clang and ASan+UBSan from the library and the daemon modules they reach.
# `make fuzz` runs each for FUZZ_SECONDS; `make test` runs each for 20 s as a
# smoke, after replaying every saved crasher (tests/fuzz/regressions/).
FUZZ_CC       ?= clang
FUZZ_SECONDS  ?= 60
FUZZ_SMOKE    ?= 20
FUZZ_DIR      := $(BUILD)/fuzz
FUZZ_NAMES    := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BINS     := $(FUZZ_NAMES:%=$(FUZZ_DIR)/fuzz_%)
FUZZ_SANITIZE := -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_DMN      := pt2d_options pt2d_buf pt2d_fmt pt2d_path pt2d_frame
FUZZ_LIB_OBJ  := $(LIB_SRC:%.c=$(FUZZ_DIR)/obj/%.o)
FUZZ_DMN_OBJ  := $(FUZZ_DMN:%=$(FUZZ_DIR)/obj/service/daemon/%.o)
FUZZ_REM_OBJ  := $(REM_SRC:%.c=$(FUZZ_DIR)/obj/%.o)
$(FUZZ_DIR)/obj/service/lib/pt2_shims.o: $(BUILD)/gen/pt2_shim_table.inc

$(FUZZ_DIR)/obj/%.o: %.c | build-deps
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -std=c11 -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 $(WARN) -g -O1 \
	  -fno-omit-frame-pointer $(FUZZ_SANITIZE) -fsanitize=fuzzer-no-link $(HOOKS_DEF) -Iservice/include \
	  -Iservice/lib -I$(BUILD)/gen -Iservice/remote -Iservice/daemon $(PKG_CFLAGS) -MMD -MP -c $< -o $@

$(FUZZ_DIR)/fuzz_%: $(FUZZ_DIR)/obj/tests/fuzz/fuzz_%.o $(FUZZ_LIB_OBJ) $(FUZZ_REM_OBJ) $(FUZZ_DMN_OBJ)
	$(FUZZ_CC) $(FUZZ_SANITIZE) -fsanitize=fuzzer -o $@ $^ $(LIBS)
# fuzz_zip compares the zip readers with test_zip's own oracle
$(FUZZ_DIR)/fuzz_zip: $(FUZZ_DIR)/obj/tests/support/zipdiff.o

fuzz: $(FUZZ_BINS)
	@FUZZ_DIR=$(FUZZ_DIR) bash tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_NAMES)

test-fuzz: $(FUZZ_BINS)
	@FUZZ_DIR=$(FUZZ_DIR) bash tests/fuzz/run.sh $(FUZZ_SMOKE) $(FUZZ_NAMES)

# --- the image -----------------------------------------------------------------
# docker/Dockerfile built and run (uid 10001, read-only root) by tests/image/run.sh:
# with docker when `docker info` works, else with Debian's buildah (make deps installs
# it, and debootstrap for the base images, only then); neither: one SKIP line.
.PHONY: image-test
image-test:
	@bash tests/image/run.sh

# --- kubernetes manifests -----------------------------------------------------
# docker/k8s against the Kubernetes API schemas (the npm package
# kubernetes-models, pinned in tests/k8s/package-lock.json, installed with
# `npm ci`), the Pod Security "restricted" profile and pt2scope's deployment
# rules; offline once installed (tests/k8s/run.sh).
.PHONY: test-k8s
K8S_STAMP := tests/k8s/node_modules/.pt2scope-npm-ci

$(K8S_STAMP): tests/k8s/package.json tests/k8s/package-lock.json
	cd tests/k8s && npm ci --no-audit --no-fund
	@touch $@

test-k8s: $(K8S_STAMP)
	@bash tests/k8s/run.sh

# --- SARIF -------------------------------------------------------------------
# `check`, `validate` and `scan --format sarif` against the SARIF 2.1.0 JSON
# schema the npm package @microsoft/jest-sarif ships, read by Ajv 6 (the
# schema is draft-04), both pinned in tests/sarif/package-lock.json and
# installed with `npm ci`; offline once installed (tests/sarif/run.sh).
.PHONY: test-sarif
SARIF_STAMP := tests/sarif/node_modules/.pt2scope-npm-ci

$(SARIF_STAMP): tests/sarif/package.json tests/sarif/package-lock.json
	cd tests/sarif && npm ci --no-audit --no-fund
	@touch $@

test-sarif: all $(SARIF_STAMP)
	@BUILD=$(BUILD) bash tests/sarif/run.sh

# --- remote test servers ---------------------------------------------------
# tests/remote/servers.sh starts the loopback servers the URL tests read
# packages from: Debian's nginx (make deps installs it), two python3 stdlib
# servers (tests/remote/httpserve.py) and an S3: s3rver behind a proxy that
# verifies every SigV4 signature (tests/remote/s3/server.mjs), pinned in
# tests/remote/s3/package-lock.json and installed with `npm ci`.
REMOTE_S3_STAMP := tests/remote/s3/node_modules/.pt2scope-npm-ci

$(REMOTE_S3_STAMP): tests/remote/s3/package.json tests/remote/s3/package-lock.json
	cd tests/remote/s3 && npm ci --no-audit --no-fund
	@touch $@

test-shell: $(REMOTE_S3_STAMP)

# --- shared library and Python ------------------------------------------------
# libpt2scope.so carries the library, the remote layer and the bindings'
# entry points (service/abi: pt2scope.h, "Bindings"), built from -fPIC
# objects of their own under $(BUILD)/obj-pic; the version script exports
# those entry points and nothing else. The Python package (service/python,
# standard library only) loads it over ctypes from next to itself or from
# $PT2SCOPE_LIBRARY; tests/python runs with Debian's python3 and pytest.
ABI_SRC    := $(sort $(wildcard service/abi/*.c))
PIC_OBJ    := $(patsubst %.c,$(BUILD)/obj-pic/%.o,$(LIB_SRC) $(REM_SRC) $(ABI_SRC))
SHLIB      := $(BUILD)/libpt2scope.so
SHLIB_MAP  := service/abi/libpt2scope.map
PYTHON     ?= $(if $(wildcard /usr/bin/python3),/usr/bin/python3,python3)
PY_PKG     := service/python
.PHONY: python test-python
$(BUILD)/obj-pic/service/lib/%.o:    LAYER_INC = $(INC_lib)
$(BUILD)/obj-pic/service/remote/%.o: LAYER_INC = $(INC_remote)
$(BUILD)/obj-pic/service/abi/%.o:    LAYER_INC = $(INC_abi)

$(BUILD)/obj-pic/service/%.o: service/%.c | build-deps
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fPIC -c $< -o $@

$(SHLIB): $(PIC_OBJ) $(SHLIB_MAP)
	$(CC) -shared -Wl,-soname,libpt2scope.so.1 -Wl,--version-script=$(SHLIB_MAP) -Wl,-z,defs \
	  -o $@ $(PIC_OBJ) $(LIBS)

# The sanitizer build runs the C suites only: it skips the shared library.
ifneq ($(SAN),1)
all: $(SHLIB)
endif

python: $(SHLIB)
	cp $(SHLIB) $(PY_PKG)/pt2scope/libpt2scope.so
	cd $(PY_PKG) && $(PYTHON) -c 'import sys; sys.path.insert(0, "build_backend"); \
	  import pt2scope_build; print(pt2scope_build.build_wheel(sys.argv[1]))' $(abspath $(BUILD))/python

test-python: python $(BUILD)/pt2scoped $(FAKECUDA)
	@PT2SCOPE_BUILD=$(BUILD) $(PYTHON) -m pytest -q -p no:cacheprovider tests/python

# tests/unit/test_abi.c links the entry points' own objects too (ASan and
# LeakSanitizer see them in test-san).
ABI_OBJ    := $(ABI_SRC:%.c=$(BUILD)/obj/%.o)
$(BUILD)/obj/service/abi/%.o: LAYER_INC = $(INC_abi)
$(BUILD)/tests/test_abi: $(ABI_OBJ)
$(BUILD)/tests/test_abi: LDWRAP = $(ABI_OBJ)

FORMAT_FILES += $(ABI_SRC)

-include $(shell find $(BUILD)/obj $(BUILD)/obj-hooks $(BUILD)/obj-pic $(BUILD)/fuzz/obj -name '*.d' 2>/dev/null)
