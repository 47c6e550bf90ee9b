"""One truth-word reading for every boolean the APIs and the PCI specs take."""

from __future__ import annotations

import pytest

from novalite import strutils


@pytest.mark.parametrize("word", ["1", "t", "True", " yes ", "ON", "y"])
def test_true_words(word):
    assert strutils.parse_bool(word) is True


@pytest.mark.parametrize("word", ["0", "f", "FALSE", "off", "n", "No"])
def test_false_words(word):
    assert strutils.parse_bool(word) is False


@pytest.mark.parametrize("word", ["", "maybe", "2", None])
def test_anything_else_is_no_answer(word):
    assert strutils.parse_bool(word) is None
