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

# Compile the translations (locale/*/LC_MESSAGES/*.po into .mo, which git ignores) with
# Django's compilemessages, which needs msgfmt: Debian's gettext, installed when missing.
compile_translations() {
  if ! command -v msgfmt >/dev/null 2>&1; then
    echo "Installing Debian's gettext (msgfmt, to compile the translations) ..."
    if [ "$(id -u)" = 0 ]; then
      (apt-get update -qq && apt-get install -y -qq gettext) >/dev/null
    else
      (sudo -n apt-get update -qq && sudo -n apt-get install -y -qq gettext) >/dev/null
    fi || { echo "Could not install gettext (apt-get install gettext): the site is in English only."; return 0; }
  fi
  .venv/bin/python manage.py compilemessages -v0 -i .venv -i node_modules -i staticfiles -i tests
}
