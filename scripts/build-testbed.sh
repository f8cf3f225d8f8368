#!/usr/bin/env bash
# Builds the test bed's real components besides the Kubernetes control plane (that is
# scripts/build-testplane.sh), from registries only (Go module proxy, npm, PyPI):
#   kubectl       k8s.io/kubernetes/cmd/kubectl, same version as the control plane
#   kruise        kruise-manager (github.com/openkruise/kruise) + its CRDs and webhook configurations
#   prometheus    github.com/prometheus/prometheus/cmd/prometheus
#   lambda-rie    the AWS Lambda Runtime Interface Emulator
#   lambda-ric    rapid-client.node of the npm package aws-lambda-ric (built here, not by npm's install scripts)
#   localstack    localstack-core in a venv (Python 3.13), from scripts/localstack/requirements.lock
# Each is cached outside the repository under ${XDG_CACHE_HOME:-~/.cache}/serverless-rollouts/<component>/<version-key>,
# is a no-op when cached, and prints how long it took. Builds run one after another at low priority.
# Usage: build-testbed.sh [component...]          (default: all, in the order above)
#        build-testbed.sh --print-dir <component> (where the harness finds it; builds nothing)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE_ROOT="${XDG_CACHE_HOME:-$HOME/.cache}/serverless-rollouts"
COMPONENTS=(kubectl kruise prometheus lambda-rie lambda-ric localstack)

K8S_VERSION="$(bash "$ROOT/scripts/build-testplane.sh" --print-version)"   # v1.34.4
KRUISE_VERSION="v1.8.3"      # v1.9.0's checksum-database lookup fails (kruise-workloads.md)
PROMETHEUS_VERSION="v0.316.0"   # the Go module version of Prometheus 3.x
RIE_VERSION="v0.0.0-20261030222936-bef5c4ba774d"   # tagged versions are not on the proxy
RIC_VERSION="$(node -p "require('$ROOT/package.json').devDependencies['aws-lambda-ric']")"
LOCALSTACK_VERSION="2026.3.0"
PYTHON313="${ROLLOUTS_PYTHON313:-$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")/versions/3.13.0/bin/python3}"
LOCALSTACK_SRC="$ROOT/scripts/localstack"

localstack_key() {
  # The venv changes with the lock file and with our plugins (installed into it): a venv per pair,
  # so worktrees with other plugin versions never reinstall into each other's (a venv cannot move).
  echo "${LOCALSTACK_VERSION}-py3.13-$(sha256sum < "$LOCALSTACK_SRC/requirements.lock" | cut -c1-12)-$(plugin_key)"
}

plugin_key() {
  find "$LOCALSTACK_SRC/plugins" -type f \( -name '*.py' -o -name '*.toml' \) | sort | xargs cat | sha256sum | cut -c1-12
}

dir_of() {
  case "$1" in
    kubectl) echo "$CACHE_ROOT/kubectl/$K8S_VERSION" ;;
    kruise) echo "$CACHE_ROOT/kruise/$KRUISE_VERSION" ;;
    prometheus) echo "$CACHE_ROOT/prometheus/$PROMETHEUS_VERSION" ;;
    lambda-rie) echo "$CACHE_ROOT/lambda-rie/$RIE_VERSION" ;;
    lambda-ric) echo "$CACHE_ROOT/lambda-ric/$RIC_VERSION" ;;
    localstack) echo "$CACHE_ROOT/localstack/$(localstack_key)" ;;
    *) echo "build-testbed: unknown component '$1' (one of: ${COMPONENTS[*]})" >&2; return 1 ;;
  esac
}

if [[ "${1:-}" == "--print-dir" ]]; then dir_of "${2:?component}"; exit 0; fi

# One build at a time per component cache: two checkouts building at once would write the same
# files (each component then finds the other's result and says "cached").
mkdir -p "$CACHE_ROOT"
exec 9>"$CACHE_ROOT/.testbed-build.lock"
flock 9
renice -n 10 -p $$ >/dev/null 2>&1 || true   # 2 shared cores: tests and other work come first
export GOFLAGS="${GOFLAGS:--buildvcs=false} -trimpath"
export CGO_ENABLED=0
WORK=$(mktemp -d "${TMPDIR:-/tmp}/rollouts-testbed.XXXXXX")
trap 'chmod -R u+w "$WORK" 2>/dev/null; rm -rf "$WORK"' EXIT

need_go() { command -v go >/dev/null || { echo "build-testbed: go is required to build $1" >&2; exit 1; }; }

# Installs $2 (a built file) as $1 atomically, so an interrupted build never looks cached.
install_bin() { mkdir -p "$(dirname "$1")"; install -m 0755 "$2" "$1.tmp"; mv "$1.tmp" "$1"; }

build_kubectl() {
  local out; out="$(dir_of kubectl)"
  [[ -x "$out/bin/kubectl" ]] && { echo "testbed: kubectl $K8S_VERSION cached at $out"; return; }
  need_go kubectl
  # Same recipe as the control plane (scripts/build-testplane.sh): k8s.io/kubernetes requires its
  # staging modules at v0.0.0, so build in our own module with each replaced by its published twin.
  local staging="v0.${K8S_VERSION#v1.}" minor="${K8S_VERSION#v1.}"; minor="${minor%%.*}"
  mkdir -p "$WORK/kubectl" && cd "$WORK/kubectl"
  go mod init example.invalid/kubectl >/dev/null 2>&1
  local gomod; gomod=$(go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
  for m in $(sed -n 's/^[[:space:]]*\(k8s\.io\/[^ ]*\) => \.\/staging\/.*/\1/p' "$gomod" | sort -u); do
    go mod edit "-replace=$m=$m@$staging"
  done
  go get "k8s.io/kubernetes/cmd/kubectl@$K8S_VERSION" 2>&1 | tail -1
  local v="" pkg
  for pkg in k8s.io/client-go/pkg/version k8s.io/component-base/version; do
    v+=" -X $pkg.gitVersion=$K8S_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean"
  done
  go build -ldflags "-s -w$v" -o "$WORK/kubectl.bin" k8s.io/kubernetes/cmd/kubectl
  install_bin "$out/bin/kubectl" "$WORK/kubectl.bin"
}

build_kruise() {
  local out; out="$(dir_of kruise)"
  if [[ -x "$out/bin/kruise-manager" && -f "$out/webhooks.yaml" ]]; then echo "testbed: kruise $KRUISE_VERSION cached at $out"; return; fi
  need_go kruise-manager
  # kruise's go.mod pins k8s.io/* with replace directives, so `go install …@version` refuses it:
  # build a writable copy of the module with its own go.sum.
  local src; src=$(go mod download -json "github.com/openkruise/kruise@$KRUISE_VERSION" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
  cp -r "$src" "$WORK/kruise" && chmod -R u+w "$WORK/kruise" && cd "$WORK/kruise"
  # Tests listen on loopback only; this version hard-codes the webhook server's host and has no flag.
  grep -q 'Host:    "0.0.0.0",' main.go || { echo "build-testbed: kruise main.go no longer binds 0.0.0.0 as expected; update the patch" >&2; exit 1; }
  sed -i 's/Host:    "0.0.0.0",/Host:    "127.0.0.1",/' main.go
  go build -ldflags "-s -w" -o "$WORK/kruise-manager" .
  # Manifests from the same module: all 18 CRDs, and the webhook configurations rendered as the
  # release's config/default does (namePrefix kruise-), which kruise looks up by name at start.
  (build_kubectl) >/dev/null
  mkdir -p "$WORK/render" && cp -r "$WORK/kruise/config/webhook" "$WORK/render/webhook"
  printf 'namePrefix: kruise-\nresources:\n- webhook\n' > "$WORK/render/kustomization.yaml"
  rm -rf "$out/crds" && mkdir -p "$out/crds"
  install -m 0644 "$WORK/kruise/config/crd/bases/"*.yaml "$out/crds/"
  "$(dir_of kubectl)/bin/kubectl" kustomize "$WORK/render" > "$out/webhooks.yaml.tmp" && mv "$out/webhooks.yaml.tmp" "$out/webhooks.yaml"
  install_bin "$out/bin/kruise-manager" "$WORK/kruise-manager"
}

build_prometheus() {
  local out; out="$(dir_of prometheus)"
  [[ -x "$out/bin/prometheus" ]] && { echo "testbed: prometheus $PROMETHEUS_VERSION cached at $out"; return; }
  need_go prometheus
  # No UI assets (the HTTP API is all tests use); --version prints an empty version without ldflags.
  GOBIN="$WORK/gobin" go install -ldflags "-s -w" "github.com/prometheus/prometheus/cmd/prometheus@$PROMETHEUS_VERSION"
  install_bin "$out/bin/prometheus" "$WORK/gobin/prometheus"
}

build_lambda_rie() {
  local out; out="$(dir_of lambda-rie)"
  [[ -x "$out/bin/aws-lambda-rie" ]] && { echo "testbed: aws-lambda-rie $RIE_VERSION cached at $out"; return; }
  need_go aws-lambda-rie
  GOBIN="$WORK/gobin" go install -ldflags "-s -w" "github.com/aws/aws-lambda-runtime-interface-emulator/cmd/aws-lambda-rie@$RIE_VERSION"
  install_bin "$out/bin/aws-lambda-rie" "$WORK/gobin/aws-lambda-rie"
}

build_lambda_ric() {
  local out; out="$(dir_of lambda-ric)"
  if [[ -f "$out/rapid-client.node" && -f "$out/index.mjs" ]]; then echo "testbed: aws-lambda-ric $RIC_VERSION cached at $out"; return; fi
  local pkg="$ROOT/node_modules/aws-lambda-ric"
  [[ -f "$pkg/index.mjs" ]] || { echo "build-testbed: $pkg missing; run npm ci first" >&2; exit 1; }
  for tool in cmake make g++; do command -v "$tool" >/dev/null || { echo "build-testbed: $tool is required to build aws-lambda-ric's native client" >&2; exit 1; }; done
  # The published package has no prebuilt rapid-client.node: its npm install scripts compile it
  # from the curl and aws-lambda-cpp sources it ships. npm runs no install scripts for it
  # (package.json allowScripts), so we run the package's own build here, on a copy, once per version.
  cp -r "$pkg" "$WORK/ric" && chmod -R u+w "$WORK/ric" && cd "$WORK/ric"
  sh scripts/preinstall.sh > "$WORK/ric-deps.log" 2>&1 || { tail -30 "$WORK/ric-deps.log" >&2; exit 1; }
  # An N-API addon (node-addon-api) is ABI-stable, so the headers of any installed Node >= 18 will
  # do; node-gyp would otherwise download them from nodejs.org, which is not reachable here.
  local nodedir="" candidate
  for candidate in "$(dirname "$(dirname "$(readlink -f "$(command -v node)")")")" /usr /usr/local; do
    [[ -f "$candidate/include/node/node_api.h" ]] && { nodedir="$candidate"; break; }
  done
  [[ -n "$nodedir" ]] || { echo "build-testbed: no Node headers (include/node/node_api.h) found for aws-lambda-ric's native client" >&2; exit 1; }
  NODE_PATH="$ROOT/node_modules" DEPS_PREFIX="$WORK/ric/deps/artifacts" \
    node "$ROOT/node_modules/node-gyp/bin/node-gyp.js" rebuild --directory=src/native --nodedir="$nodedir" > "$WORK/ric-gyp.log" 2>&1 \
    || { tail -30 "$WORK/ric-gyp.log" >&2; exit 1; }
  mkdir -p "$out"
  install -m 0644 index.mjs LICENSE NOTICE "$out/"
  install -m 0644 src/native/build/Release/rapid-client.node "$out/rapid-client.node.tmp"
  mv "$out/rapid-client.node.tmp" "$out/rapid-client.node"
}

build_localstack() {
  local out; out="$(dir_of localstack)"
  if [[ -f "$out/.complete" ]]; then echo "testbed: localstack $LOCALSTACK_VERSION cached at $out"; return; fi
  [[ -x "$PYTHON313" ]] || { echo "build-testbed: Python 3.13 not found at $PYTHON313 (LocalStack needs >= 3.12; set ROLLOUTS_PYTHON313)" >&2; exit 1; }
  # A venv is not relocatable, so it is built in place; .complete marks a finished install.
  rm -rf "$out" && mkdir -p "$out"
  "$PYTHON313" -m venv "$out/venv"
  "$out/venv/bin/pip" install --quiet --no-deps --require-hashes -r "$LOCALSTACK_SRC/requirements.lock"
  # Our plugins (scripts/localstack/plugins: DynamoDB on moto, the Lambda executor without Docker),
  # built with the locked setuptools from a copy (setuptools writes build/ and *.egg-info beside the sources).
  cp -r "$LOCALSTACK_SRC/plugins" "$WORK/plugins"
  "$out/venv/bin/pip" install --quiet --no-deps --no-build-isolation "$WORK/plugins"
  "$out/venv/bin/python" -c 'import localstack.runtime.main, rollouts_localstack.dynamodb, rollouts_localstack.lambda_executor'
  touch "$out/.complete"
}

selected=("$@")
[[ ${#selected[@]} -eq 0 ]] && selected=("${COMPONENTS[@]}")
for component in "${selected[@]}"; do
  dir_of "$component" >/dev/null
  start=$(date +%s)
  (cd "$ROOT" && "build_${component//-/_}")
  echo "testbed: $component took $(( $(date +%s) - start ))s"
done
