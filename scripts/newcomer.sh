#!/usr/bin/env bash
# The README's "Quick start" as a newcomer follows it on a clean machine
# with Go installed: a new module in a temp dir, a spec, a generated
# client, a local server, and a call that must succeed. CI runs it
# (.ci/run); it needs no network but the Go module proxy.
#
# One step differs: resgen is not published (and CI reaches nothing but
# the module proxy), so instead of `go get -tool ...@v0.1.0` the module
# takes resgen from this checkout, linked in beside it as ../resgen: the
# README's "From a checkout" step. The files are cut from the README
# itself; cmd/resgen/readme_test.go checks that the commands between the
# markers below and the README's are the same, both ways.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
readme=$repo/README.md
work=$(mktemp -d)
server=
cleanup() {
	if [ -n "$server" ]; then kill -- -"$server" 2>/dev/null || true; fi
	rm -rf "$work"
}
trap cleanup EXIT

# readme_file NAME writes NAME from the fenced block that the README's
# quick start introduces with a line ending in `NAME`:.
readme_file() {
	local -
	set +x
	mkdir -p "$(dirname "$1")"
	awk -v tag="\`$1\`:" '
		/^## / { inqs = ($0 == "## Quick start") }
		inqs && !want && substr($0, length($0) - length(tag) + 1) == tag { want = 1; next }
		want && /^```/ { if (inblock) exit; inblock = 1; next }
		inblock { print }
	' "$readme" >"$1"
	if [ ! -s "$1" ]; then
		echo "newcomer: the README's quick start has no block for \`$1\`:" >&2
		exit 1
	fi
}

# free_port prints a loopback port nothing listens on.
free_port() {
	local -
	set +x
	local port
	for _ in $(seq 50); do
		port=$((20000 + RANDOM % 40000))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			echo "$port"
			return
		fi
	done
	echo "newcomer: no free port" >&2
	exit 1
}

# wait_for_server waits until the server started in the background
# accepts connections on $PORT (go run builds it first).
wait_for_server() {
	local -
	set +x
	for _ in $(seq 600); do
		if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
			return
		fi
		if ! kill -0 "$server" 2>/dev/null; then
			echo "newcomer: the server exited" >&2
			exit 1
		fi
		sleep 0.1
	done
	echo "newcomer: the server did not listen on port $PORT in 60s" >&2
	exit 1
}

cd "$work"
ln -s "$repo" resgen
export GOWORK=off
PORT=$(free_port)
export PORT
set -x

# --- README quick start ---
mkdir hello && cd hello
go mod init example.com/hello
# README, not run: go get -tool github.com/resgen/resgen/cmd/resgen@v0.1.0
go mod edit -replace github.com/resgen/resgen=../resgen -require github.com/resgen/resgen@v0.0.0 -tool github.com/resgen/resgen/cmd/resgen
go mod tidy
readme_file hello.yaml
readme_file api/gen.go
go generate ./... && go mod tidy
readme_file server/main.go
readme_file main.go
set -m # not in README: the server in a process group of its own, so cleanup stops go run and its child
go run ./server &
server=$! # not in README
wait_for_server # not in README
go run . | tee client.out
# --- end ---

{ set +x; } 2>/dev/null
want="Hello, gopher! (2 attempts)"
if [ "$(cat client.out)" != "$want" ]; then
	echo "newcomer: the client printed $(cat client.out), want $want" >&2
	exit 1
fi
echo "newcomer: ok: a generated client called a local server ($want)"
