"""ImagePropertiesWeigher: weigh hosts by how many of their instances were booted from
images sharing properties with the requested image: per shared (property, value), the
number of the host's instances having it, times the property's ratio in
[filter_scheduler] image_props_weight_setting ('name=ratio, ...'; empty: every property
1.0, a property not listed 0). image_props_weight_multiplier: positive packs alike
instances, negative spreads them, 0 (the default) switches the weigher off."""

from __future__ import annotations

import collections
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from novalite.conf import CONF
from novalite.db.api import instances
from novalite.objects.request_spec import RequestSpec
from novalite.scheduler.host_state import HostState
from novalite.scheduler.host_table import HostTable
from novalite.scheduler.utils import parse_options
from novalite.scheduler.weighers import BaseHostWeigher


def _enabled() -> bool:
    # As Nova: the configured multiplier, not an aggregate's, switches it off.
    return CONF.filter_scheduler.image_props_weight_multiplier != 0.0


def _pairs(props: dict[str, Any]) -> set[tuple[str, str]]:
    return {(key, str(value)) for key, value in props.items()}


class ImagePropertiesWeigher(BaseHostWeigher):
    multiplier_option = "image_props_weight_multiplier"
    # instance uuids -> {uuid: the properties of the image it was booted from}
    image_properties: Callable[[Iterable[str]], dict[str, dict]] = \
        staticmethod(instances.image_properties_by_instance)

    def needs_instances(self, spec: RequestSpec) -> bool:
        return _enabled()

    def weigh(self, host_state: HostState, spec: RequestSpec) -> float:
        if not _enabled():
            return 0.0
        return self._weight(self.image_properties(host_state.instances), host_state, spec)

    def weigh_array(self, table: HostTable, rows: np.ndarray,
                    spec: RequestSpec) -> np.ndarray | float:
        if not _enabled():
            return 0.0  # switched off: every host weighs 0
        states = [table.states[r] for r in rows.tolist()]
        known = self.image_properties(set().union(*(s.instances for s in states)))
        return np.array([self._weight(known, s, spec) for s in states], dtype=np.float64)

    @staticmethod
    def _weight(known: dict[str, dict[str, Any]], host_state: HostState,
                spec: RequestSpec) -> float:
        requested = _pairs(spec.image.properties) if spec.image else set()
        existing: collections.Counter = collections.Counter()
        for uuid in host_state.instances:
            existing.update(_pairs(known.get(uuid, {})))
        setting = dict(parse_options(CONF.filter_scheduler.image_props_weight_setting, "=",
                                     float, "filter_scheduler.image_props_weight_setting"))
        weight = 0.0
        for prop, value in sorted(requested & existing.keys()):
            ratio = setting.get(prop, 0.0) if setting else 1.0
            weight += ratio * existing[(prop, value)]
        return weight
