"""Serving: the heap start-up made is left out of the collector's full passes."""

from __future__ import annotations

import gc

from novalite import http_server


def test_freeze_heap_moves_what_is_alive_out_of_collection():
    try:
        http_server.freeze_heap()
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
