"""Flavors and their extra specs."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from novalite import exception
from novalite.db import models
from novalite.db.session import reader, retry_on_deadlock, writer
from novalite.objects.flavor import Flavor

# Nova's classic default flavors: (flavorid, name, memory_mb, vcpus, root_gb).
DEFAULT_FLAVORS = [
    ("1", "m1.tiny", 512, 1, 1),
    ("2", "m1.small", 2048, 1, 20),
    ("3", "m1.medium", 4096, 2, 40),
    ("4", "m1.large", 8192, 4, 80),
    ("5", "m1.xlarge", 16384, 8, 160),
]


def _to_obj(row: models.Flavor) -> Flavor:
    return Flavor(
        id=row.id, flavorid=row.flavorid, name=row.name, memory_mb=row.memory_mb,
        vcpus=row.vcpus, root_gb=row.root_gb, ephemeral_gb=row.ephemeral_gb, swap=row.swap,
        rxtx_factor=row.rxtx_factor, vcpu_weight=row.vcpu_weight, disabled=row.disabled,
        is_public=row.is_public, description=row.description,
        extra_specs={spec.key: spec.value for spec in row.extra_specs},
    )


@retry_on_deadlock
def flavor_create(flavor: Flavor) -> Flavor:
    with writer() as s:
        row = models.Flavor(
            flavorid=flavor.flavorid, name=flavor.name, memory_mb=flavor.memory_mb,
            vcpus=flavor.vcpus, root_gb=flavor.root_gb, ephemeral_gb=flavor.ephemeral_gb,
            swap=flavor.swap, rxtx_factor=flavor.rxtx_factor, vcpu_weight=flavor.vcpu_weight,
            disabled=flavor.disabled, is_public=flavor.is_public,
            description=flavor.description,
            extra_specs=[models.FlavorExtraSpec(key=k, value=v)
                         for k, v in flavor.extra_specs.items()],
        )
        s.add(row)
        try:
            s.flush()
        except IntegrityError:
            raise exception.Conflict(
                f"Flavor with name {flavor.name} or ID {flavor.flavorid} already exists."
            ) from None
        return _to_obj(row)


def flavor_get_by_flavorid(flavorid: str) -> Flavor:
    with reader() as s:
        row = s.scalar(select(models.Flavor).filter_by(flavorid=flavorid))
        if row is None:
            raise exception.FlavorNotFound(flavor_id=flavorid)
        return _to_obj(row)


def flavor_get_all(is_public: bool | None = True) -> list[Flavor]:
    with reader() as s:
        query = select(models.Flavor).filter_by(disabled=False)
        if is_public is not None:
            query = query.filter_by(is_public=is_public)
        rows = s.scalars(query.order_by(models.Flavor.memory_mb, models.Flavor.flavorid))
        return [_to_obj(r) for r in rows]


def seed_default_flavors() -> int:
    """Create Nova's m1.* flavors that don't exist yet; returns how many were created."""
    with reader() as s:
        existing = set(s.scalars(select(models.Flavor.flavorid)))
    created = 0
    for flavorid, name, ram, vcpus, disk in DEFAULT_FLAVORS:
        if flavorid not in existing:
            try:
                flavor_create(Flavor(flavorid=flavorid, name=name, memory_mb=ram,
                                     vcpus=vcpus, root_gb=disk))
                created += 1
            except exception.Conflict:
                pass  # another service seeded it at the same moment
    return created
