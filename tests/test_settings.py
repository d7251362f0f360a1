"""Configuration from the environment: safe defaults, a clean deploy check."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL", "DEBUG", "SECRET_KEY"}}
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env={**base, **env},
                          capture_output=True, text=True, timeout=120)


def test_deploy_check_is_clean_with_debug_off():
    result = run_manage("check", "--deploy", "--fail-level", "WARNING", DEBUG="0",
                        SECRET_KEY="x7-" + "kq3vP9zL2mW8rT5yB1nC4dF6gH0jK" * 2, ALLOWED_HOSTS="boardhall.example")
    assert result.returncode == 0, result.stdout + result.stderr


def test_debug_off_without_a_secret_key_refuses_to_start():
    result = run_manage("check", DEBUG="0")
    assert result.returncode != 0 and "SECRET_KEY must be set" in result.stderr


def test_environment_selects_postgresql_and_redis():
    code = ("from django.conf import settings as s;"
            "print(s.DATABASES['default']['ENGINE'], s.CHANNEL_LAYERS['default']['BACKEND'])")
    default = run_manage("shell", "-v", "0", "-c", code)
    assert default.stdout.split() == ["django.db.backends.sqlite3", "games.layers.InMemoryLayer"]
    scaled = run_manage("shell", "-v", "0", "-c", code, DATABASE_URL="postgres://u@db.example:5432/boardhall",
                        REDIS_URL="redis://cache.example:6379/0")
    assert scaled.stdout.split() == ["django.db.backends.postgresql", "channels_redis.pubsub.RedisPubSubChannelLayer"]
