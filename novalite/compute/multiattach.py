"""Multiattach volumes on the compute side (Nova's): a volume the volume service lets
several servers attach at once (its `multiattach` is true). The API attaches one, or
boots from one, only for a request of 2.60 or later (an older client would not expect
a volume to show on several servers) and never to a server shelved off any host (no
compute says it could take it); the compute that connects one must have a driver
that declares `supports_multiattach`, and tells the driver the disk is shared."""

from __future__ import annotations

from typing import Any

from novalite import exception

MICROVERSION = "2.60"
CAPABILITY = "supports_multiattach"


class MultiattachNotSupportedOldMicroversion(exception.Invalid):
    msg_fmt = ("Multiattach volumes are only supported starting with compute API version "
               "2.60.")


class MultiattachToShelvedNotSupported(exception.Invalid):
    msg_fmt = ("Attaching multiattach volumes is not supported for shelved-offloaded "
               "instances.")


class MultiattachNotSupportedByVirtDriver(exception.Invalid):
    msg_fmt = ("Volume %(volume_id)s has 'multiattach' set, which is not supported for this "
               "instance.")


def is_multiattach(volume: dict[str, Any]) -> bool:
    return bool(volume.get("multiattach"))


def check_microversion(volume: dict[str, Any], supports_multiattach: bool) -> None:
    """`supports_multiattach`: the request is of MICROVERSION or later."""
    if is_multiattach(volume) and not supports_multiattach:
        raise MultiattachNotSupportedOldMicroversion()


def check_driver(volume: dict[str, Any], capabilities: dict[str, bool]) -> None:
    """A multiattach volume only for a driver whose `capabilities` take one."""
    if is_multiattach(volume) and not capabilities.get(CAPABILITY, False):
        raise MultiattachNotSupportedByVirtDriver(volume_id=volume.get("id"))


def flagged(volume: dict[str, Any], connection_info: dict[str, Any]) -> dict[str, Any]:
    """The connection a driver attaches the volume with: a multiattach volume's says
    so (Nova's connection_info['multiattach']: the driver makes the disk shareable)."""
    return {**connection_info, "multiattach": True} if is_multiattach(volume) else (
        connection_info)
