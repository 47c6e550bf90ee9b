"""The host table: every cached HostState as one row, its numeric fields as columns.

Built-in filters and weighers read whole columns (numpy arrays) instead of visiting 10,000
HostState objects one attribute at a time; that is where Nova spends its 2.3 s per
decision. HostState stays the readable form: a host state bound to a table writes every
column field it sets into its row, so consuming a choice, a compute report or a filter
that sets an attribute keeps both views identical without a copy step.

Values that need the host's aggregates (multipliers, zones) are asked once per distinct
set of aggregate metadata and cached until aggregate membership or metadata change (the
host manager bumps the version then). Each row's set is kept as nodes come and go, so a
refresh that replaces one node's state costs that node, not a pass over every host.

Which rows hold an instance (server groups, same_host / different_host) is an index kept
as hosts' instance sets are assigned, so those filters cost what the request names, not
the number of hosts. Instance sets are replaced, never changed in place.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Hashable, Iterable, Sequence, Set
from typing import TYPE_CHECKING, Any

import numpy as np

from novalite.hardware import pci
from novalite.scheduler import aggregates

if TYPE_CHECKING:
    from novalite.scheduler.host_state import HostState

# HostState fields held as columns (float64 holds every int these take exactly).
NUMERIC = ("total_usable_ram_mb", "free_ram_mb", "ram_allocation_ratio",
           "total_usable_disk_gb", "free_disk_mb", "disk_mb_used", "disk_allocation_ratio",
           "vcpus_total", "vcpus_used", "cpu_allocation_ratio",
           "num_instances", "num_io_ops", "hypervisor_version")
FLAGS = ("service_up", "service_disabled")
# Columns computed from a HostState field: field -> (column, how).
DERIVED = {"pci_stats": ("free_pci_devices", pci.free_devices),
           "stats": ("failed_builds", lambda stats: int(stats.get("failed_builds", 0)))}
COLUMNS = frozenset(NUMERIC + FLAGS + tuple(col for col, _ in DERIVED.values()))
# What makes two hosts alike for the image and capability filters: hosts of one class
# answer those filters the same way, so the filter runs once per class, not per host.
CLASS_FIELDS = frozenset(("hypervisor_type", "hypervisor_version", "supported_instances",
                          "cpu_info"))
WATCHED = COLUMNS | CLASS_FIELDS | {"aggregates", "instances"} | frozenset(DERIVED)
_NONE: frozenset[str] = frozenset()


def _class_key(state: HostState) -> Hashable:
    """Asked of every host at a scheduler's start: the JSON text is made only for a host
    that reports CPU details (a simulated one reports none)."""
    return (state.hypervisor_type, state.hypervisor_version,
            tuple(map(tuple, state.supported_instances)),
            json.dumps(state.cpu_info, sort_keys=True, default=str) if state.cpu_info else "")


class HostTable:
    def __init__(self, capacity: int = 64) -> None:
        self.states: list[HostState] = []
        self.row_of: dict[str, int] = {}  # compute node uuid -> row
        self._nodes_of: dict[str, set[str]] = {}  # host -> its node uuids
        self._capacity = capacity
        self._cols: dict[str, np.ndarray] = {
            name: np.zeros(capacity, dtype=bool if name in FLAGS else np.float64)
            for name in COLUMNS}
        self._class = np.zeros(capacity, dtype=np.int32)
        self._class_ids: dict[Hashable, int] = {}
        self.class_members: list[HostState] = []  # a copy of one host per class id
        self.aggregates_version = 0
        # Per row, a code for its aggregate metadata (valid while _coded), one host per
        # code, and per cached question its answer per code.
        self._agg_codes = np.zeros(capacity, dtype=np.int32)
        self._agg_ids: dict[Hashable, int] = {}
        self._agg_members: list[HostState] = []
        self._coded = False
        self._by_aggregates: dict[Hashable, np.ndarray] = {}
        self._holders: dict[str, set[int]] = {}  # instance uuid -> rows holding it
        self._indexed: dict[int, Set[str]] = {}  # row -> the instance set indexed for it

    def __len__(self) -> int:
        return len(self.states)

    def column(self, name: str) -> np.ndarray:
        """A view of the live rows (no copy): do not write through it."""
        return self._cols[name][: len(self.states)]

    def hosts(self, rows: Iterable[int]) -> list[str]:
        return [self.states[r].host for r in rows]

    def states_of(self, host: str) -> list[HostState]:
        return [self.states[self.row_of[uuid]] for uuid in self._nodes_of.get(host, ())]

    def add(self, state: HostState) -> int:
        """Add a node's state, or replace the state of a node already here in its row."""
        self.extend([state])
        return self.row_of[state.uuid]

    def extend(self, states: Sequence[HostState]) -> None:
        """Add nodes' states (replacing those of nodes already here), each column filled
        once for all of them: a scheduler's first refresh adds every node at once."""
        for state in states:
            if state.uuid in self.row_of:
                self.remove(state.uuid)
        start = len(self.states)
        end = start + len(states)
        while end > self._capacity:
            self._grow()
        for row, state in enumerate(states, start):
            self.states.append(state)
            self.row_of[state.uuid] = row
            self._nodes_of.setdefault(state.host, set()).add(state.uuid)
            state.bind(self, row)
            self._index_instances(row, state.instances)
        for name in (*NUMERIC, *FLAGS):
            self._cols[name][start:end] = [getattr(s, name) or 0 for s in states]
        for name, (column, derive) in DERIVED.items():
            self._cols[column][start:end] = [derive(getattr(s, name)) for s in states]
        self._class[start:end] = [self._class_id(s) for s in states]
        if self._coded:
            self._agg_codes[start:end] = [self._aggregate_code(s) for s in states]

    def remove(self, uuid: str) -> None:
        """The last row moves into the gap, so rows stay dense."""
        row = self.row_of.pop(uuid)
        gone = self.states[row]
        nodes = self._nodes_of[gone.host]
        nodes.discard(uuid)
        if not nodes:
            del self._nodes_of[gone.host]
        self._index_instances(row, _NONE)
        last = self.states.pop()
        gone.bind(None, -1)
        if last is not gone:
            moved = self._indexed.pop(len(self.states), _NONE)
            for uuid in moved:
                holders = self._holders[uuid]
                holders.discard(len(self.states))
                holders.add(row)
            if moved:
                self._indexed[row] = moved
            self.states[row] = last
            self.row_of[last.uuid] = row
            last.bind(self, row)
            for col in (*self._cols.values(), self._class, self._agg_codes):
                col[row] = col[len(self.states)]

    def write(self, row: int, name: str, value: Any) -> None:
        """Called by HostState.__setattr__ for a watched field of a bound state."""
        if name in COLUMNS:
            self._cols[name][row] = value or 0
        elif name in DERIVED:
            column, derive = DERIVED[name]
            self._cols[column][row] = derive(value)
        elif name in CLASS_FIELDS:
            self._classify(row)
        elif name == "aggregates":
            self.aggregates_changed()
        elif name == "instances":
            self._index_instances(row, value)

    def _index_instances(self, row: int, instances: Set[str]) -> None:
        old = self._indexed.get(row, _NONE)
        if instances is old:
            return
        for uuid in old - instances if old else ():
            holders = self._holders[uuid]
            holders.discard(row)
            if not holders:
                del self._holders[uuid]
        for uuid in instances - old if instances else ():
            self._holders.setdefault(uuid, set()).add(row)
        if instances:
            self._indexed[row] = instances
        else:
            self._indexed.pop(row, None)

    def _grow(self) -> None:
        self._capacity *= 2
        for name, col in self._cols.items():
            self._cols[name] = np.resize(col, self._capacity)
        self._class = np.resize(self._class, self._capacity)
        self._agg_codes = np.resize(self._agg_codes, self._capacity)

    def _classify(self, row: int) -> None:
        self._class[row] = self._class_id(self.states[row])

    def _class_id(self, state: HostState) -> int:
        key = _class_key(state)
        cid = self._class_ids.get(key)
        if cid is None:
            cid = self._class_ids[key] = len(self.class_members)
            # An unbound copy: the host itself may change class later.
            self.class_members.append(dataclasses.replace(state))
        return cid

    def per_class(self, rows: np.ndarray, answer: Callable[[HostState], Any],
                  dtype: Any = bool) -> np.ndarray:
        """`answer` asked once per host class among `rows`, spread to every row.

        Only for questions whose answer depends on CLASS_FIELDS alone."""
        classes = self._class[rows]
        ids = np.unique(classes)
        lookup = np.zeros(len(self.class_members), dtype=dtype)
        for cid in ids:
            lookup[cid] = answer(self.class_members[cid])
        return lookup[classes]

    def per_key(self, rows: np.ndarray, key: Callable[[HostState], Hashable],
                answer: Callable[[HostState], Any], dtype: Any = bool) -> np.ndarray:
        """`answer` asked once per distinct `key(state)` among `rows` (e.g. the NUMA
        topology and ratios a NUMA fit depends on), spread to every row.

        Only for questions whose answer depends on what `key` returns alone."""
        answers: dict[Hashable, Any] = {}
        out = np.empty(len(rows), dtype=dtype)
        for i, row in enumerate(rows.tolist()):
            state = self.states[row]
            k = key(state)
            if k not in answers:
                answers[k] = answer(state)
            out[i] = answers[k]
        return out

    def aggregates_changed(self) -> None:
        self.aggregates_version += 1
        self._coded = False
        self._agg_ids.clear()
        self._agg_members.clear()
        self._by_aggregates.clear()

    def per_aggregate_set(self, rows: np.ndarray, answer: Callable[[HostState], Any],
                          dtype: Any = bool, key: Hashable = None) -> np.ndarray:
        """`answer` asked once per distinct set of aggregate metadata among `rows`,
        spread to every row; with `key`, kept for every set until aggregates change.

        Only for questions whose answer depends on host_state.aggregates alone."""
        codes = self._aggregate_codes()[rows]
        if key is None:
            lookup = np.zeros(len(self._agg_members), dtype=dtype)
            for code in np.unique(codes).tolist():
                lookup[code] = answer(self._agg_members[code])
            return lookup[codes]
        known = self._by_aggregates.get(key)
        if known is None or len(known) < len(self._agg_members):
            done = 0 if known is None else len(known)
            more = np.array([answer(m) for m in self._agg_members[done:]], dtype=dtype)
            known = self._by_aggregates[key] = more if known is None else \
                np.concatenate([known, more])
        return known[codes]

    def _aggregate_codes(self) -> np.ndarray:
        """Per row, the code of its hosts' aggregate metadata (one pass over every host
        after aggregates change; nodes added since are coded as they come)."""
        if not self._coded:
            self._agg_codes[: len(self.states)] = [self._aggregate_code(s)
                                                   for s in self.states]
            self._coded = True
        return self._agg_codes[: len(self.states)]

    def _aggregate_code(self, state: HostState) -> int:
        metadata = tuple(tuple(sorted(a.metadata.items())) for a in state.aggregates)
        code = self._agg_ids.get(metadata)
        if code is None:
            code = self._agg_ids[metadata] = len(self._agg_members)
            self._agg_members.append(state)
        return code

    def aggregate_min(self, key: str, default: float, cast: Callable = float) -> np.ndarray:
        """Per row, the smallest number the host's aggregates give `key`, else `default`
        (aggregates.min_number, kept until aggregates change)."""
        return self.per_aggregate_set(
            np.arange(len(self.states)),
            lambda state: aggregates.min_number(state, key, default, cast),
            dtype=np.float64, key=("min", key, default, cast))

    def rows_holding(self, instance_uuids: Iterable[str]) -> np.ndarray:
        """Per row, how many of `instance_uuids` the host holds (host_state.instances)."""
        counts = np.zeros(len(self.states), dtype=np.int64)
        for uuid in set(instance_uuids):
            rows = self._holders.get(uuid)
            if rows:
                counts[list(rows)] += 1
        return counts

    def rows_named(self, hosts: Iterable[str]) -> np.ndarray:
        """Per row: is the host one of `hosts`?"""
        named = np.zeros(len(self.states), dtype=bool)
        for host in set(hosts):
            for uuid in self._nodes_of.get(host, ()):
                named[self.row_of[uuid]] = True
        return named

    def rows_of_nodes(self, nodes: Iterable[str]) -> np.ndarray:
        """Per row: is the node one of `nodes`?"""
        wanted = set(nodes)
        return np.fromiter((s.nodename in wanted for s in self.states), dtype=bool,
                           count=len(self.states))

    def nbytes(self) -> int:
        """Bytes of the columns (the per-host share of the array engine)."""
        return sum(c.nbytes for c in self._cols.values()) + self._class.nbytes
