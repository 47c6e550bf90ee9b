import pytest

from novalite.scheduler.filters.extra_specs_ops import match


@pytest.mark.parametrize(("value", "req", "expected"), [
    ("123", "123", True), ("12311321", "123", False),       # no operator: string equality
    ("123", "= 123", True), ("124", "= 123", True), ("122", "= 123", False),  # = is >=
    ("123", "== 123", True), ("124", "== 123", False), ("12", "== abc", False),
    ("124", "!= 123", True), ("123", "!= 123", False),
    ("123", ">= 123", True), ("122", ">= 123", False),
    ("123", "<= 123", True), ("124", "<= 123", False),
    ("abc", "s== abc", True), ("abd", "s== abc", False), ("abd", "s!= abc", True),
    ("abc", "s< abd", True), ("abd", "s<= abd", True), ("abe", "s> abd", True),
    ("abd", "s>= abd", True), ("abc", "s>= abd", False),
    ("12311321", "<in> 11", True), ("12310321", "<in> 11", False),
    ("12311321", "<all-in> 11 321", True), ("12311321", "<all-in> 11 999", False),
    ("12", "<or> 11 <or> 12", True), ("13", "<or> 11 <or> 12", False),
    ("12", "<or> 11 <or> 12 <or>", True), (None, "<in> 11", False), ("11", "<in>", False),
])
def test_match(value, req, expected):
    assert match(value, req) is expected
