"""The README's table of supported APIs is the route tables' (novalite.api.supported), and
the 501 table never shadows a served route."""

from __future__ import annotations

from pathlib import Path

from novalite.api import supported
from novalite.api.compute import unserved
from novalite.api.compute.routes import ROUTES

README = Path(__file__).parents[3] / "README.md"


def test_the_readme_table_is_the_route_tables():
    text = README.read_text()
    assert supported.rewrite(text) == text, (
        "README.md's table of supported APIs differs from the route tables; run "
        "`.venv/bin/python -m novalite.api.supported README.md`")


def test_every_served_compute_route_is_left_out_of_the_unserved_ones():
    served = {(unserved.shape(path), method) for path, method, *_ in ROUTES}
    answered = {(unserved.shape(path), method) for path, method, *_ in unserved.routes(ROUTES)}
    assert not served & answered
    assert ("/v2.1/os-baremetal-nodes", "GET") in answered
