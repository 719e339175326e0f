#!/usr/bin/env bash
# install-jupyter: make sure Debian's Jupyter (notebook, nbconvert, nbclient,
# jupyter_client) is usable, and with --browser also Debian's Chromium (for
# scripts/browser_test.py); install the Debian packages with apt-get when
# they are missing and we are root (as in CI and in docker/Dockerfile),
# otherwise stop with a message naming the packages.
#
# Usage: scripts/install-jupyter.sh [--browser]
#
# Environment: NOTEBOOK_JUPYTER, NOTEBOOK_PYTHON (default /usr/bin/jupyter and
# /usr/bin/python3: Debian's, never a pyenv or virtualenv one).
set -euo pipefail

python=${NOTEBOOK_PYTHON:-/usr/bin/python3}
jupyter=${NOTEBOOK_JUPYTER:-/usr/bin/jupyter}
packages="jupyter-notebook python3-nbconvert python3-nbclient jupyter-client python3-ipykernel jupyter-nbconvert"
browser=false
if [ "${1:-}" = --browser ]; then
	browser=true
	packages="$packages chromium"
fi

have_jupyter() {
	[ -x "$jupyter" ] && [ -x "$python" ] &&
		"$python" -c 'import nbformat, nbclient, nbconvert, jupyter_client, tornado' 2>/dev/null &&
		"$jupyter" nbconvert --version >/dev/null 2>&1 &&
		{ ! $browser || command -v chromium >/dev/null; }
}

have_jupyter && exit 0
sudo=
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
	sudo=sudo
fi
if { [ "$(id -u)" -eq 0 ] || [ -n "$sudo" ]; } && command -v apt-get >/dev/null; then
	echo "install-jupyter: installing Jupyter from Debian packages: $packages"
	start=$(date +%s)
	export DEBIAN_FRONTEND=noninteractive
	$sudo apt-get update -qq
	# shellcheck disable=SC2086
	$sudo apt-get install -y -qq --no-install-recommends $packages >/dev/null
	echo "install-jupyter: Jupyter installed in $(($(date +%s) - start)) s"
else
	echo "install-jupyter: Jupyter is missing ($jupyter with nbconvert and nbclient)." >&2
	echo "install-jupyter: install the Debian packages, as root:" >&2
	echo "  apt-get install $packages" >&2
	exit 1
fi
have_jupyter || { echo "install-jupyter: Jupyter still unusable after installing $packages" >&2; exit 1; }
