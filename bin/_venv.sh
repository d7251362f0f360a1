# Sourced by bin/start and bin/test: make .venv and install the pinned requirements when they changed.
# usage: ensure_venv requirements.txt|requirements-dev.txt
ensure_venv() {
  local reqs="$1" stamp=".venv/.installed-$1"
  if [ ! -x .venv/bin/python ]; then
    echo "Creating .venv (python3 -m venv) ..."
    python3 -m venv .venv || { echo "python3 -m venv failed: install Python 3.11+ with venv (Debian: apt-get install python3-venv)"; exit 1; }
  fi
  local want
  want=$(cat requirements.txt "$reqs" constraints.txt | sha256sum | cut -c1-16)
  if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    echo "Installing $reqs into .venv ..."
    .venv/bin/python -m pip install -q --disable-pip-version-check -r "$reqs" -c constraints.txt
    echo "$want" > "$stamp"
  fi
}
