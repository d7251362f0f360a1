"""Configuration from the environment: safe defaults, a clean deploy check."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run_manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL", "DEBUG", "SECRET_KEY"}}
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env={**base, **env},
                          capture_output=True, text=True, timeout=120)


SHOW = ("from django.conf import settings as s; print(s.DEBUG, s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, "
        "s.SECURE_SSL_REDIRECT, s.SECURE_HSTS_SECONDS, s.SECRET_KEY)")


def test_deploy_check_is_clean_over_https():
    result = run_manage("check", "--deploy", "--fail-level", "WARNING", DEBUG="0", HTTPS_ONLY="1",
                        SECRET_KEY="x7-" + "kq3vP9zL2mW8rT5yB1nC4dF6gH0jK" * 2, ALLOWED_HOSTS="boardhall.example")
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_default_is_production_mode_over_plain_http_with_a_kept_secret_key(tmp_path):
    key_file = tmp_path / "secret"
    first = run_manage("shell", "-v", "0", "-c", SHOW, SECRET_KEY_FILE=str(key_file), HOST="0.0.0.0")
    debug, *secure, hsts, key = first.stdout.split()
    assert debug == "False" and secure == ["False"] * 3 and hsts == "0", first.stdout + first.stderr
    assert len(key) > 50 and key_file.read_text().strip() == key and key_file.stat().st_mode & 0o077 == 0
    again = run_manage("shell", "-v", "0", "-c", SHOW, SECRET_KEY_FILE=str(key_file))
    assert again.stdout.split()[-1] == key


def test_behind_a_tls_proxy_cookies_are_secure_and_http_redirects(tmp_path):
    result = run_manage("shell", "-v", "0", "-c", SHOW, SECRET_KEY_FILE=str(tmp_path / "k"), BEHIND_TLS_PROXY="1")
    assert result.stdout.split()[:5] == ["False", "True", "True", "True", "31536000"]
    development = run_manage("shell", "-v", "0", "-c", SHOW, SECRET_KEY_FILE=str(tmp_path / "k"), DEBUG="1")
    assert development.stdout.split()[0] == "True"


def test_environment_selects_postgresql_and_redis():
    code = ("from django.conf import settings as s;"
            "print(s.DATABASES['default']['ENGINE'], s.CHANNEL_LAYERS['default']['BACKEND'])")
    default = run_manage("shell", "-v", "0", "-c", code)
    assert default.stdout.split() == ["django.db.backends.sqlite3", "live.layers.InMemoryLayer"]
    scaled = run_manage("shell", "-v", "0", "-c", code, DATABASE_URL="postgres://u@db.example:5432/boardhall",
                        REDIS_URL="redis://cache.example:6379/0")
    assert scaled.stdout.split() == ["django.db.backends.postgresql", "live.layers.RedisPubSubLayer"]


@pytest.mark.django_db
def test_pages_carry_a_content_security_policy_without_inline_script(client):
    policy = client.get("/")["Content-Security-Policy"]
    directives = dict(part.strip().split(" ", 1) for part in policy.split(";"))
    assert directives["default-src"] == "'self'" and directives["connect-src"] == "'self'"
    assert directives["object-src"] == "'none'" and directives["frame-ancestors"] == "'none'"
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy


def test_processes_starting_together_agree_on_one_secret_key(tmp_path):
    key_file = tmp_path / "secret"
    env = {k: v for k, v in os.environ.items() if k not in {"SECRET_KEY", "DATABASE_URL", "REDIS_URL"}}
    env["SECRET_KEY_FILE"] = str(key_file)
    code = "from config import settings; print(settings.SECRET_KEY)"
    starts = [subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
              for _ in range(4)]
    keys = {process.communicate(timeout=60)[0].strip() for process in starts}
    assert keys == {key_file.read_text().strip()} and list(tmp_path.iterdir()) == [key_file]


def test_with_sentinels_the_channel_layer_asks_them_for_the_primary(tmp_path):
    show = ("import json; from django.conf import settings as s; "
            "print(json.dumps(s.CHANNEL_LAYERS['default']['CONFIG']['hosts']))")
    result = run_manage("shell", "-v", "0", "-c", show, SECRET_KEY_FILE=str(tmp_path / "k"),
                        REDIS_URL="redis://:secret@sentinel/3", REDIS_SENTINELS="10.0.0.5:26379, redis-b:26380",
                        REDIS_SENTINEL_MASTER="site")
    [host] = json.loads(result.stdout.splitlines()[-1])
    assert host["sentinels"] == [["10.0.0.5", 26379], ["redis-b", 26380]] and host["master_name"] == "site"
    assert (host["db"], host["password"]) == (3, "secret") and "address" not in host
    assert host["socket_timeout"] is None and host["max_connections"] == 1000
