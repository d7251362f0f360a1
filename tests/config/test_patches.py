"""config/patches.py: a patch is applied only to the library it was written for, otherwise the
server warns once and runs unpatched; every private name the code relies on is still there, in
the shape it expects, in the installed libraries."""

import logging
import pprint
import re
import sys
import types
from pathlib import Path

import pytest
from autobahn.websocket import protocol
from twisted.internet import tcp

from config import accesslog, bodylimit, closehandshake, drain, handshake, headlimit, patches, slowclients, tcpwrite
from config.patches import PRIVATE, Mismatch, Patch, Private, replace

PATCHES = {"tcpwrite": tcpwrite.PATCH, "handshake": handshake.PATCH, "bodylimit": bodylimit.PATCH,
           "drain": drain.PATCH, "closehandshake": closehandshake.PATCH,
           "headlimit": headlimit.PATCH, "slowclients": slowclients.PATCH,
           "accesslog": accesslog.PATCH}
EVERY_PRIVATE = [*PRIVATE, *(private for patch in PATCHES.values() for private in patch.uses)]


@pytest.mark.parametrize("private", EVERY_PRIVATE, ids=lambda p: f"{p.used_in}:{p.owner}.{p.name}" + (f" in {p.named_in}" if p.named_in else ""))
def test_every_private_name_is_in_the_installed_libraries_as_expected(private):
    try:
        private.check()
    except Mismatch as reason:
        pytest.fail(f"{private.used_in} relies on {private.owner.replace(':', '.')}.{private.name}, "
                    f"which the installed library changed: {reason}")


def test_every_patch_of_the_config_package_is_checked_here_and_named_in_the_patches_docstring():
    """A module of config/ that defines a ``PATCH`` is one this file checks, and one
    config/patches.py's docstring names, so that neither list misses a patch added later."""
    modules = Path(patches.__file__).parent.glob("*.py")
    defined = {module.stem for module in modules if re.search(r"^PATCH = Patch\(", module.read_text(), re.M)}
    assert defined == set(PATCHES)
    assert [name for name in sorted(defined) if f"``config/{name}.py``" not in patches.__doc__] == []


@pytest.mark.parametrize("name", PATCHES)
def test_every_patch_was_written_for_the_installed_library(name):
    patch = PATCHES[name]
    patch.check()  # its version and every name it uses
    assert patch.uses and patch.benchmark


def test_an_upgrade_that_removed_a_name_is_named(monkeypatch):
    from channels_redis.pubsub import RedisSingleShardConnection

    private = next(p for p in PRIVATE if p.name == "_ensure_receiver")
    monkeypatch.delattr(RedisSingleShardConnection, "_ensure_receiver")
    with pytest.raises(Mismatch, match=r"channels_redis\.pubsub\.RedisSingleShardConnection has no _ensure_receiver"):
        private.check()


class Target:
    """A stand-in for the library's class that a patch replaces a method of."""

    def write(self, data):
        return "library"


class Changed:
    def write(self, data, flush):
        return "changed"


def a_library(monkeypatch, version: str | None = "2.1.0", target: type | None = Target) -> None:
    """Install a stand-in library, module ``library``, as an upgrade could have left it."""
    library = types.ModuleType("library")
    if version is not None:
        library.__version__ = version
    if target is not None:
        library.Target = target
    monkeypatch.setitem(sys.modules, "library", library)


def a_patch(applied: list) -> Patch:
    return Patch(unpatched="Writes are slow", library="Library", module="library", versions=("2.1.",),
                 uses=(Private("library:Target", "write", "tests", params=("self", "data")),),
                 benchmark="none: a test", apply=lambda **options: applied.append(options))


def test_a_patch_is_applied_to_the_library_it_was_written_for(monkeypatch, recwarn):
    a_library(monkeypatch)
    applied = []
    assert a_patch(applied).install(speed=2) is True
    assert applied == [{"speed": 2}] and len(recwarn) == 0


@pytest.mark.parametrize(("version", "target", "reason"), [
    ("3.0.0", Target, r"Library 3\.0\.0 is not one of \('2\.1\.',\)"),
    (None, Target, r"Library \(unknown version\)"),
    ("2.1.7", Changed, r"Changed\.write is write\(self, data, flush\), not write\(self, data\)"),
    ("2.1.7", None, r"library has no Target"),
    ("2.1.7", object, r"builtins\.object has no write"),
], ids=["newer", "unknown version", "other signature", "class gone", "method gone"])
def test_a_patch_is_refused_with_one_warning_on_another_library(monkeypatch, caplog, version, target, reason):
    a_library(monkeypatch, version, target)
    applied = []
    with caplog.at_level(logging.WARNING, logger="config.patches"), \
            pytest.warns(RuntimeWarning, match=reason) as warned:
        assert a_patch(applied).install(speed=2) is False
    assert applied == [] and len(warned) == 1 and str(warned[0].message).startswith("Writes are slow: ")
    assert [record.getMessage() for record in caplog.records] == [str(warned[0].message)]


def test_a_check_after_the_patch_sees_the_librarys_own_shape():
    class Patched(Target):
        pass

    private = Private("library:Patched", "write", "tests", params=("self", "data"))
    inherited = Private("library:Patched", "write", "tests", inherited=True)
    replace(Patched, "write", lambda self, data, at_once=True: "patched")
    assert Patched().write(b"") == "patched"
    private.check({"library:Patched": Patched})  # the library's write(self, data), not the patch's
    inherited.check({"library:Patched": Patched})  # the class did not define its own before
    with pytest.raises(Mismatch, match="defines its own write"):
        inherited.check({"library:Patched": Changed})


def test_a_name_set_inside_a_library_function_is_checked_there():
    def setting_up(self):
        self.queue = []

    private = Private("library:Target", "queue", "tests", named_in="library:Target.set_up")
    private.check({"library:Target": type("Old", (), {"set_up": setting_up})})
    with pytest.raises(Mismatch, match=r"\.queue is no longer used by library\.Target\.set_up"):
        private.check({"library:Target": type("New", (), {"set_up": lambda self: None})})


def test_tcpwrite_is_refused_by_another_twisted_and_leaves_its_write(monkeypatch):
    import twisted

    monkeypatch.setattr(tcp.Connection, "write", Target.write)
    monkeypatch.setattr(twisted, "__version__", "27.1.0")
    with pytest.warns(RuntimeWarning, match="Twisted 27.1.0"):
        assert tcpwrite.write_at_once() is False
    assert tcp.Connection.write is Target.write
    with pytest.raises(Mismatch, match=r"Changed\.write is write\(self, data, flush\), not write\(self, bytes\)"):
        tcpwrite.PATCH.check({"twisted": type("Twisted", (), {"__version__": "26.10.0"}),
                              "twisted.internet.tcp:Connection": Changed})


def test_tcpwrite_is_applied_to_the_twisted_it_was_written_for(monkeypatch):
    from twisted.internet import abstract

    monkeypatch.setattr("config.patches._originals", {})  # this test's replacement is forgotten after it
    # As Twisted has it (a test that ran before may have installed the patch already).
    monkeypatch.setattr(tcp.Connection, "write", lambda self, bytes: abstract.FileDescriptor.write(self, bytes))
    assert tcpwrite.write_at_once() is True
    assert tcp.Connection.write.at_once


def test_handshake_is_refused_by_another_autobahn_and_applied_to_its_own(monkeypatch):
    import autobahn

    monkeypatch.setattr(protocol, "pformat", pprint.pformat)
    monkeypatch.setattr(autobahn, "__version__", "27.0.0")
    with pytest.warns(RuntimeWarning, match="autobahn 27.0.0"):
        assert handshake.lazy_pformat() is False
    assert protocol.pformat is pprint.pformat
    monkeypatch.undo()
    monkeypatch.setattr("config.patches._originals", {})
    monkeypatch.setattr(protocol, "pformat", pprint.pformat)
    assert handshake.lazy_pformat() is True
    assert protocol.pformat is handshake.LazyFormat
