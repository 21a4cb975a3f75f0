# bun and deno come from PATH, else from the npm packages `bun` and `deno` installed under .tools/ (a
# fresh machine has only Node and npm).
BUN_VERSION := 1.4.5
DENO_VERSION := 2.9.6
LOCAL_BUN := .tools/node_modules/.bin/bun
LOCAL_DENO := .tools/node_modules/.bin/deno
BUN := $(or $(shell command -v bun 2>/dev/null),$(LOCAL_BUN))
DENO := $(or $(shell command -v deno 2>/dev/null),$(LOCAL_DENO))
ARGS ?=

# scripts/build.ts compiles as `bun build --compile --minify --bytecode --format=esm --splitting`
# does (its comment says why each), with the schemas' checks generated as code at build time.
COMPILE := scripts/build.ts
DIST_TARGETS := linux-x64 linux-arm64 darwin-x64 darwin-arm64
DIST_DIR ?= dist
# The part of the suite `make test-deno` runs under `deno run`: the CLI, sessions, save/load, the
# daemon's life, tasks in real PTYs, attach, the socket's security (the peer check's FFI), the config
# file (smol-toml), the lost-fleet notice and autostart through systemd-run.
DENO_TESTS := test/e2e/cli.test.ts test/e2e/sessions-cli.test.ts test/e2e/save-load.test.ts test/e2e/load-edges.test.ts test/e2e/save-refusals.test.ts \
	test/e2e/daemon.test.ts test/e2e/daemon-events.test.ts test/e2e/daemon-hostile.test.ts test/e2e/config.test.ts \
	test/e2e/tasks.test.ts test/e2e/attach.test.ts test/slow/completions.test.ts test/slow/security-socket.test.ts test/slow/crash-notice.test.ts test/slow/service.test.ts
# Test files run at once: most of an end-to-end test is waiting on a daemon, a PTY or a process.
# make test's tests on 2 cores, quiet, workers keeping their modules (--no-isolate): 66-69 s and
# 126-133 CPU-s with 4, 74 s and 140 CPU-s with 8 (each worker loads the modules once more, and more
# processes share the two cores). The slow lane's 100- and 500-task fleets run four at a time.
TEST_WORKERS ?= 4
SLOW_WORKERS ?= 4

.PHONY: deps build dist lint typecheck test test-unit test-slow test-deno run bench docs hooks clean

deps: node_modules/.installed

$(LOCAL_BUN):
	npm install --prefix .tools --no-audit --no-fund --loglevel=error bun@$(BUN_VERSION)

$(LOCAL_DENO):
	npm install --prefix .tools --no-audit --no-fund --loglevel=error deno@$(DENO_VERSION)

node_modules/.installed: package.json bun.lock | $(BUN)
	$(BUN) install --frozen-lockfile
	touch $@

# The bytecode laid out by where the common starts go (scripts/bytecode-order.ts), recorded afresh
# from this source in a directory of its own; every release target shares one recording.
build: deps
	order=$$(mktemp -d) && $(BUN) $(COMPILE) --bytecode-order=$$order src/main.ts dist/fleetcom; status=$$?; rm -rf "$$order"; exit $$status

# Release assets: one binary per target (Bun fetches each target's runtime through the npm registry),
# install.sh, and SHA256SUMS over all of them.
dist: deps
	rm -f $(DIST_DIR)/fleetcom-* $(DIST_DIR)/SHA256SUMS $(DIST_DIR)/install.sh
	order=$$(mktemp -d) && for target in $(DIST_TARGETS); do \
	  $(BUN) $(COMPILE) --target=bun-$$target --bytecode-order=$$order src/main.ts $(DIST_DIR)/fleetcom-$$target || { rm -rf "$$order"; exit 1; }; \
	done; rm -rf "$$order"
	cp install.sh $(DIST_DIR)/install.sh
	cd $(DIST_DIR) && { sha256sum fleetcom-* install.sh 2>/dev/null || shasum -a 256 fleetcom-* install.sh; } > SHA256SUMS

# The lanes: unit (pure modules, seconds), e2e (the real binary driven through every command, the
# dashboard, pickers, attach; with unit, the ~20 s inner loop), slow (the long scenario suites:
# agents through their fakes, 100- and 500-task fleets, the security suites (other users, reused
# PIDs, hostile clients and text), crashes, history, completions in each shell, the service units,
# the release path). `make test` is
# lint, types, unit and e2e; .ci/run adds slow and Deno, so CI runs every test. Most of a test's
# time is the processes it starts (daemons, clients, tasks in PTYs) and waiting on them, so a lane's
# time follows how many fleets it starts.
lint: deps
	./node_modules/.bin/biome check .

# One checker thread: the check takes 6.4 s instead of 6.8, with 7.5 CPU-s instead of 12.5, and in
# make test it runs beside lint and the build, which want the other core.
typecheck: deps
	./node_modules/.bin/tsc --noEmit -p . --singleThreaded

test-unit: deps
	$(BUN) test --timeout 60000 test/unit

# The end-to-end tests drive the binary just built (FLEETCOM_TEST_BIN, test/harness/helpers.ts): what
# users run, and each of the suite's ~750 CLI processes starts in ~20 ms instead of ~50 ms from source.
# Lint, the type check and the build run side by side: each leaves part of the second core idle
# (16 s one after another from a fresh clone, 12 s together). --no-isolate lets each worker keep the
# modules it loaded (xterm, the sources under test) from one file to the next instead of loading
# them again for each of the 80 files: 162 -> 152 CPU-s. The tests restore what they change of the
# process (its environment) and hold their state in their own sandboxes.
test: deps
	$(MAKE) --no-print-directory -j3 lint typecheck build
	FLEETCOM_TEST_BIN=dist/fleetcom $(BUN) test --timeout 60000 --parallel=$(TEST_WORKERS) --no-isolate test/unit test/e2e

# One store for the run's packed binary (test/harness/packs.ts): the remote files share one packing.
test-slow: build
	packs=$$(mktemp -d); FLEETCOM_TEST_PACKS=$$packs FLEETCOM_TEST_BIN=dist/fleetcom $(BUN) test --timeout 120000 --parallel=$(SLOW_WORKERS) test/slow; rc=$$?; rm -rf "$$packs"; exit $$rc

# A pre-commit hook that runs what a commit must pass in seconds: lint and the type check.
hooks:
	printf '#!/bin/sh\nexec make --no-print-directory lint typecheck\n' > .git/hooks/pre-commit
	chmod +x .git/hooks/pre-commit

# Under Deno a task killed by a signal reports exit code 1 and no signal: bun-pty's library keeps only
# portable-pty's exit_code() (docs/troubleshooting.md). The two tests that check signal names are left out.
# And rm's sweep of what a finished task left in its group: after the reap the group is signalled only
# with /proc's proof that it is still the task's (docs/security.md); under Deno (bun-pty's library
# spawning the task) that proof does not hold for this case, so nothing is signalled: the safe side,
# a leftover process of the user's, never a stranger's. Why it does not hold there is not yet known.
# And the readiness pipe: Deno's node:fs cannot use an inherited fd 3, so under Deno the daemon says
# nothing there and autostart finds it by trying to connect every 20 ms, as before.
DENO_SKIP := exit codes and signals are reported as they happened|kill KILLs a TERM-ignoring task|sweeps what a finished one left in its group|says there that it listens

test-deno: deps | $(DENO)
	PATH="$(dir $(abspath $(DENO))):$$PATH" FLEETCOM_TEST_RUNTIME=deno \
	  $(BUN) test --timeout 60000 --test-name-pattern '^(?!.*($(DENO_SKIP))).*' $(DENO_TESTS)

# Without ARGS: the dashboard on a demo fleet (clock, fake server, its log tail, top), supervised in
# this process so quitting ends the demo's tasks, in a temporary directory that goes with it
# (scripts/demo.sh): no log beside it, no snapshot in the user's recover --list.
run: build
	$(if $(ARGS),./dist/fleetcom $(ARGS),scripts/demo.sh ./dist/fleetcom)

# docs/dashboard.txt: the dashboard captured from the real program with a realistic fleet.
docs: deps
	$(BUN) scripts/capture-dashboard.ts

bench: build
	$(BUN) bench/run.ts $(ARGS)

clean:
	rm -rf dist node_modules .tools
