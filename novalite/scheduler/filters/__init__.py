"""Host filters: the contract every filter implements, and the built-in set.

A filter answers one question per host: may this request land here? Built-in filters
register under the entry-point group `novalite.scheduler.filters` by their Nova class
name; an operator's own filter is a subclass of BaseHostFilter named by dotted path in
`[filter_scheduler] available_filters` and by class name in `enabled_filters`.
"""

from __future__ import annotations

import numpy as np

from novalite import plugins
from novalite.objects.request_spec import RequestSpec
from novalite.scheduler.host_state import HostState
from novalite.scheduler.host_table import HostTable

NAMESPACE = "novalite.scheduler.filters"


class BaseHostFilter:
    # True: only the first instance of a multi-create is checked (the answer cannot change).
    run_filter_once_per_request = False

    def host_passes(self, host_state: HostState, spec: RequestSpec) -> bool:
        raise NotImplementedError

    def filter_array(self, table: HostTable, rows: np.ndarray,
                     spec: RequestSpec) -> np.ndarray | None:
        """The same answer as host_passes for every row in `rows`, as one boolean array
        computed from the table's columns; None when this request needs the per-host
        form (the default, so an operator's filter needs only host_passes)."""
        return None

    def explain(self, host_state: HostState, spec: RequestSpec) -> str:
        """Why this host fails the request, in a few words with the numbers compared
        (e.g. '512 MB free, 2,048 MB wanted'); '' when the filter has nothing to add.
        Asked only for the few hosts a decision names, so it may be slow."""
        return ""

    def needs_instances(self, spec: RequestSpec) -> bool:
        """True when this request makes the filter read host_state.instances, which the
        scheduler then loads (it is a database query, so only on demand)."""
        return False

    def run_filter_for_index(self, index: int) -> bool:
        return not (self.run_filter_once_per_request and index > 0)

    @property
    def name(self) -> str:
        return type(self).__name__


def all_filters() -> list[type[BaseHostFilter]]:
    """Every built-in filter class (Nova's `nova.scheduler.filters.all_filters`)."""
    return [ep.load() for ep in plugins.namespace(NAMESPACE).values()]
