# bun comes from PATH, else from the npm package `bun` installed under .tools/ (a fresh machine has
# only Node and npm).
BUN_VERSION := 1.4.5
LOCAL_BUN := .tools/node_modules/.bin/bun
BUN := $(or $(shell command -v bun 2>/dev/null),$(LOCAL_BUN))
ARGS ?=

.PHONY: deps build test run bench clean

deps: node_modules/.installed

$(LOCAL_BUN):
	npm install --prefix .tools --no-audit --no-fund --loglevel=error bun@$(BUN_VERSION)

node_modules/.installed: package.json bun.lock | $(BUN)
	$(BUN) install --frozen-lockfile
	touch $@

build: deps
	$(BUN) build --compile --minify --bytecode --format=esm src/main.ts --outfile dist/fleetcom

test: deps
	$(BUN) test --timeout 60000

run: build
	./dist/fleetcom $(if $(ARGS),$(ARGS),--help)

bench: build
	$(BUN) bench/run.ts $(ARGS)

clean:
	rm -rf dist node_modules .tools
