"""The examples in the docstrings of games.ggp.gdl run and say what they show."""

import doctest
import importlib

import pytest

pytestmark = pytest.mark.pure  # no database, no channel layer: stage 1 only (bin/test)

MODULES = ["kif", "reasoner", "moves", "sheets", "equality"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_hold(name):
    module = importlib.import_module(f"games.ggp.gdl.{name}")
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0
