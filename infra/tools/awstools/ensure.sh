#!/usr/bin/env bash
# Prints the directory of a virtualenv holding AWS's pinned tools
# (requirements.txt: cfn-lint, the SAM CLI and translator, botocore, moto),
# creating it on first use in the user's cache, the way DynamoDB Local is
# kept: ${XDG_CACHE_HOME:-$HOME/.cache}/botix-public-api/awstools-<digest of
# requirements.txt>. A changed lock file makes a new one; an install cut
# short is redone. Concurrent callers wait for one install.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
py=${PYTHON:-$([ -x /usr/bin/python3 ] && echo /usr/bin/python3 || echo python3)}
if ! command -v "$py" >/dev/null 2>&1; then
	echo "awstools: AWS's tools need Python 3.9+; install it: apt-get install -y python3 python3-venv" >&2
	exit 1
fi
if ! "$py" -c 'import venv, ensurepip' >/dev/null 2>&1; then
	echo "awstools: $py cannot make a virtualenv with pip; install it: apt-get install -y python3-venv" >&2
	exit 1
fi
cache=${XDG_CACHE_HOME:-$HOME/.cache}/botix-public-api
digest=$(sha256sum "$here/requirements.txt" | cut -c1-12)
dir=$cache/awstools-$digest
if [ -f "$dir/.complete" ]; then
	echo "$dir"
	exit 0
fi
mkdir -p "$cache"
exec 9>"$cache/awstools.lock"
if ! flock -n 9; then
	echo "awstools: waiting for another process that installs AWS's tools..." >&2
	flock 9
fi
if [ ! -f "$dir/.complete" ]; then
	echo "awstools: installing AWS's pinned tools into $dir (once; about 400 MB, half a minute)..." >&2
	rm -rf "$dir"
	"$py" -m venv "$dir" >&2
	"$dir/bin/pip" install --quiet --disable-pip-version-check --no-input --require-hashes --no-deps \
		-r "$here/requirements.txt" >&2 ||
		{ echo "awstools: pip could not install $here/requirements.txt (is the package index reachable?)" >&2; exit 1; }
	touch "$dir/.complete"
fi
echo "$dir"
