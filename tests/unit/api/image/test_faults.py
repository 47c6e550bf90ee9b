"""Glance's errors in webob's JSON form, which openstacksdk reads the message of."""

from __future__ import annotations

import json

from novalite.api.faults import HTTPFault
from novalite.api.image import faults


def test_webob_json_form():
    response = faults.fault(HTTPFault(404, "No image found with ID x"), "req-1")
    assert response.status_code == 404
    assert response.headers["content-type"] == "application/json"
    assert json.loads(response.body) == {"message": "No image found with ID x<br /><br />\n\n",
                                         "code": "404 Not Found", "title": "Not Found"}


def test_no_data_is_an_empty_204_and_odd_codes_still_render():
    assert faults.fault(HTTPFault(204, "The requested image has no data"), "r").body == b""
    assert json.loads(faults.fault(HTTPFault(599, "odd"), "r").body)["title"] == "Error"
