"""IsolatedHostsFilter: images listed in [filter_scheduler] isolated_images run only on
the isolated_hosts; with restrict_isolated_hosts_to_isolated_images (the default) those
hosts run nothing else.

                     isolated image   other image
    isolated host    pass             pass only if not restricted
    other host       fail             pass

With no isolated images configured, every image is an "other image".
"""

from __future__ import annotations

import numpy as np

from novalite.conf import CONF
from novalite.objects.request_spec import RequestSpec
from novalite.scheduler.filters import BaseHostFilter
from novalite.scheduler.host_state import HostState
from novalite.scheduler.host_table import HostTable


def _image_isolated(spec: RequestSpec) -> bool:
    # A volume-backed server may have no image at all.
    return (spec.image.id if spec.image else None) in CONF.filter_scheduler.isolated_images


class IsolatedHostsFilter(BaseHostFilter):
    run_filter_once_per_request = True  # configuration only: the same for every instance

    def host_passes(self, host_state: HostState, spec: RequestSpec) -> bool:
        restrict = CONF.filter_scheduler.restrict_isolated_hosts_to_isolated_images
        host_isolated = host_state.host in CONF.filter_scheduler.isolated_hosts
        if _image_isolated(spec):
            return host_isolated
        return not (restrict and host_isolated)

    def filter_array(self, table: HostTable, rows: np.ndarray,
                     spec: RequestSpec) -> np.ndarray:
        restrict = CONF.filter_scheduler.restrict_isolated_hosts_to_isolated_images
        image_isolated = _image_isolated(spec)
        if not (image_isolated or restrict):
            return np.ones(len(rows), dtype=bool)
        host_isolated = table.rows_named(CONF.filter_scheduler.isolated_hosts)[rows]
        return host_isolated if image_isolated else ~host_isolated
